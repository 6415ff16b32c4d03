import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { createConfigSource } from '../../../src/config/source.js';
import { type AnyTaskType, TaskTypeRegistry } from '../../../src/engine/task-registry.js';
import { createTaskSettler } from '../../../src/engine/task-settler.js';
import { EventBus } from '../../../src/services/event-bus.js';
import { systemClock } from '../../../src/services/ports.js';
import type { TaskRecord, WebhookRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store-contract.js';
import { createOutbox } from '../../../src/webhooks/outbox.js';
import { BACKENDS } from '../store/store-backends.js';

/**
 * A settlement nobody is to hear of (no webhook matches it, no custom endpoint) carries its
 * "no event" mark in its own write; one with an audience is written unmarked and gets its event
 * after. On both stores, through the engine's settlement and the outbox's answer.
 */
const AT = new Date().toISOString();
const config = createConfigSource(loadConfig({ env: {} }));

const echo: AnyTaskType = {
  type: 'test.echo',
  scope: 'image:generate',
  body: () => {
    throw new Error('not created through the API here');
  },
  toRequest: (body) => body,
  itemCount: () => 1,
  itemCost: () => 10,
  lane: () => 'test',
  maxAttempts: 1,
  runItem: async () => null,
  settle: (task) =>
    task.items.every((item) => item.status === 'success')
      ? { status: 'completed', result: { ok: true } }
      : { status: 'failed', result: null, errors: [{ code: 'PROVIDER_ERROR' }] },
};

const pendingTask = (id: string, request: unknown): TaskRecord => ({
  id,
  type: 'test.echo',
  status: 'pending',
  accountId: 'acc_1',
  apiKeyId: null,
  request,
  items: [{ status: 'pending' }],
  estimate: 10,
  cost: 0,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});

const webhook = (id: string, events: string[]): WebhookRecord => ({
  id,
  accountId: 'acc_1',
  url: 'https://hooks.example/in',
  events,
  apiKeyIds: [],
  enabled: true,
  sealedSecret: 'unused',
  createdAt: AT,
  updatedAt: AT,
});

for (const backend of BACKENDS) {
  test(`${backend.name}: a settlement without an audience is marked in its own write; one with an audience gets its event`, async (t) => {
    const store: Store = await backend.open(t);
    await store.accounts.create({ id: 'acc_1', name: 'acc_1', balance: 0, createdAt: AT, updatedAt: AT });
    await store.accounts.credit({ id: 'cr_1', accountId: 'acc_1', amount: 1_000, createdAt: AT });
    const events = new EventBus();
    const registry = new TaskTypeRegistry();
    registry.register(echo);
    const progress = createTaskSettler({ store, registry, clock: systemClock, events });
    const marks: string[] = [];
    const markNoEvent = store.webhooks.markNoEvent.bind(store.webhooks);
    store.webhooks.markNoEvent = async (taskId) => {
      marks.push(taskId);
      return markNoEvent(taskId);
    };
    const outbox = createOutbox({
      store,
      secretsKey: new Uint8Array(32),
      clock: systemClock,
      config,
      events,
      log: () => {},
    });
    t.after(() => outbox.close());

    // Only completed generate tasks are subscribed to: a failed echo task has nobody to tell.
    await store.webhooks.put(webhook('wh_1', ['task.image.generate.completed']));
    await store.tasks.create(pendingTask('tsk_a', {}), {});
    await progress.finishItem('tsk_a', 0, { status: 'failed', error: { code: 'PROVIDER_ERROR' } });
    assert.equal((await store.tasks.get('tsk_a'))?.eventId, 'none', 'marked when it settled, before any listener ran');

    // A custom endpoint is an audience whatever the webhooks.
    await store.tasks.create(
      pendingTask('tsk_b', { webhook: { custom: [{ url: 'https://hooks.example/custom' }] } }),
      {},
    );
    await progress.finishItem('tsk_b', 0, { status: 'failed', error: { code: 'PROVIDER_ERROR' } });
    const withEvent = await waitFor(async () => (await store.tasks.get('tsk_b'))?.eventId);
    assert.match(withEvent, /^evt_/, 'its event was recorded after the settlement');

    // Closed, the outbox answers nothing: settlements are written unmarked, as before it was made.
    outbox.close();
    assert.equal(await events.hasAudience(pendingTask('tsk_c', {}), 'failed'), true);
    assert.deepEqual(marks, [], 'no mark was written on its own');
  });
}

/** Polls `read` until it answers a value (the outbox records events after the settlement, asynchronously). */
async function waitFor(read: () => Promise<string | undefined>): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never answered');
}
