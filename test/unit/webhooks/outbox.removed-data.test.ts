import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { createConfigSource } from '../../../src/config/source.js';
import { EventBus } from '../../../src/services/event-bus.js';
import { systemClock } from '../../../src/services/ports.js';
import type { TaskRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store-contract.js';
import { createOutbox } from '../../../src/webhooks/outbox.js';
import { BACKENDS } from '../store/store-backends.js';

/**
 * A settlement's event is written from the task as it settled. When the task's data is removed
 * between the settlement and that write (a DELETE answered by another process of a fleet), the
 * outbox finds it so after its write and rebuilds the event from what is kept: no payload keeps
 * what was deleted, whichever of the two writes came first.
 */
const AT = new Date().toISOString();
const MARK = 'zq-outbox-marker-40';
const config = createConfigSource(loadConfig({ env: {} }));

for (const backend of BACKENDS) {
  test(`${backend.name}: an event written after its task's data was removed holds the scrubbed task`, async (t) => {
    const store: Store = await backend.open(t);
    await store.accounts.create({ id: 'acc_1', name: 'acc_1', balance: 0, createdAt: AT, updatedAt: AT });
    await store.accounts.credit({ id: 'cr_1', accountId: 'acc_1', amount: 1_000, createdAt: AT });
    await store.webhooks.put({
      id: 'wh_1',
      accountId: 'acc_1',
      url: 'https://hooks.example/in',
      events: null,
      apiKeyIds: [],
      enabled: true,
      sealedSecret: 'unused',
      createdAt: AT,
      updatedAt: AT,
    });
    const pending: TaskRecord = {
      id: 'tsk_1',
      type: 'test.echo',
      status: 'pending',
      accountId: 'acc_1',
      apiKeyId: null,
      request: { metadata: { ref: MARK } },
      items: [{ status: 'pending' }],
      estimate: 10,
      cost: 0,
      result: null,
      createdAt: AT,
      updatedAt: AT,
    };
    await store.tasks.create(pending, {});
    const settled = (await store.tasks.settle({
      id: 'tsk_1',
      status: 'completed',
      result: { said: MARK },
      cost: 10,
      at: AT,
      lastItem: { index: 0, item: { status: 'success', cost: 10 } },
    }))!;
    assert.ok(JSON.stringify(settled).includes(MARK));
    await store.tasks.removeData('tsk_1', AT);

    const outbox = createOutbox({
      store,
      secretsKey: new Uint8Array(32),
      clock: systemClock,
      config,
      events: new EventBus(),
      log: () => {},
    });
    t.after(() => outbox.close());
    await outbox.recordTaskEvent(settled);
    const { eventId } = (await store.tasks.get('tsk_1'))!;
    assert.ok(eventId && eventId !== 'none', 'the event was recorded');
    const event = (await store.webhooks.getEvent(eventId))!;
    assert.ok(!JSON.stringify(event).includes(MARK), JSON.stringify(event.payload));
    assert.equal((event.payload as { data: { dataRemoved?: boolean } }).data.dataRemoved, true);
  });
}
