import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openServices } from '../../../src/app/services.js';
import { loadConfig } from '../../../src/config/load.js';
import type { TaskRecord } from '../../../src/store/records.js';
import { tempDir } from '../../helpers/temp-dir.js';

const config = loadConfig({ env: {}, overrides: { webhooks: { allowPrivateAddresses: true } } });

function pendingTask(n: number, accountId: string): TaskRecord {
  const at = new Date(Date.parse('2026-01-01') + n).toISOString();
  // Odd tasks opt out of dashboard webhooks: nobody to tell, so only a mark.
  const request = n % 2 ? { webhook: { dashboard: false } } : {};
  return {
    id: `tsk_${String(n).padStart(8, '0')}`,
    type: 'test.echo',
    status: 'pending',
    accountId,
    apiKeyId: null,
    request,
    items: [{ status: 'pending' }],
    estimate: 10,
    cost: 0,
    result: null,
    createdAt: at,
    updatedAt: at,
  };
}

test('recoverMissing records, in batches, the event or the mark of every settled task without one, durably', async (t) => {
  const dataDir = await tempDir(t);
  const count = 2500;
  let services = (await openServices({ dataDir, config })).internals;
  const account = await services.accounts.create('acme', 1_000_000_000);
  await services.webhooks.create(account.id, { url: 'http://127.0.0.1:9/hook' });
  const tasks = Array.from({ length: count }, (_, n) => pendingTask(n, account.id));
  await Promise.all(tasks.map((task) => services.store.tasks.create(task, {})));
  await Promise.all(
    tasks.map((task) =>
      services.store.tasks.settle({
        id: task.id,
        status: 'completed',
        result: { n: task.id },
        cost: 10,
        at: task.createdAt,
      }),
    ),
  );
  assert.equal((await services.store.webhooks.settledWithoutEvent()).length, count);

  assert.equal(await services.outbox.recoverMissing(), count);
  const check = async () => {
    assert.equal((await services.store.webhooks.settledWithoutEvent()).length, 0);
    assert.deepEqual(await services.store.webhooks.deliveryCounts(), { pending: count / 2, delivered: 0, failed: 0 });
    for (const task of [tasks[0], tasks[1], tasks[count - 2], tasks[count - 1]]) {
      const eventId = (await services.store.tasks.get(task.id))!.eventId!;
      if (task.request && 'webhook' in (task.request as object)) assert.equal(eventId, 'none');
      else assert.equal((await services.store.webhooks.getEvent(eventId))?.taskId, task.id);
    }
  };
  await check();
  assert.equal(await services.outbox.recoverMissing(), 0, 'nothing left to recover');
  await services.close();

  services = (await openServices({ dataDir, config })).internals;
  t.after(() => services.close());
  await check();
  // The pending deliveries come back in due order for the dispatcher.
  const { due } = await services.outbox.due(Date.now(), 5, new Set());
  assert.equal(due.length, 5);
  assert.deepEqual(
    due.map((d) => d.nextAttemptAt! + d.id),
    due.map((d) => d.nextAttemptAt! + d.id).sort(),
  );
});
