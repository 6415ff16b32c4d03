import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Harness, startService, waitForTask, webhooksQuiet } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

// Budget alerts off: they read the account's webhooks for their own event after a charged settlement.
const FAST = {
  webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 50, 100], timeoutMs: 1000 },
  billing: { alerts: { thresholds: [] } },
};

/** Counts the reads of the account's webhooks from now on. */
function countWebhookReads(h: Harness): () => number {
  const repo = h.server.services.store.webhooks;
  const listByAccount = repo.listByAccount.bind(repo);
  let reads = 0;
  repo.listByAccount = (accountId) => {
    reads++;
    return listByAccount(accountId);
  };
  return () => reads;
}

const task = (h: Harness, body: Record<string, unknown> = {}) =>
  h.request('POST', '/test/tasks', { auth: h.apiKey, body }).then((res) => res.json.data.taskId as string);

test("a settlement with an audience reads the task's webhooks once: the endpoints found before the write make its event", async (t) => {
  const h = await startService(t, { config: FAST });
  const dashboard = await startReceiver(t);
  const custom = await startReceiver(t);
  const hook = await h.request('POST', '/webhook', { auth: h.token, body: { url: dashboard.url() } });
  assert.equal(hook.status, 201, hook.text);
  const reads = countWebhookReads(h);

  const completed = await task(h, { items: 2 });
  const failed = await task(h, {
    failItems: [0],
    failCode: 'INVALID_INPUT',
    webhook: { custom: [{ url: custom.url('/custom') }] },
  });
  await waitForTask(h, completed);
  await waitForTask(h, failed);
  await webhooksQuiet(h);
  assert.equal(reads(), 2, 'one read per settlement, not one before the write and one after');

  // Delivered as before: each event to the dashboard webhook, the failed one to its custom endpoint too.
  assert.deepEqual(dashboard.received.map((r) => [r.json.type, r.json.data.taskId]).sort(), [
    ['task.test.echo.completed', completed],
    ['task.test.echo.failed', failed],
  ]);
  assert.deepEqual(
    custom.received.map((r) => [r.path, r.json.type, r.json.data.taskId]),
    [['/custom', 'task.test.echo.failed', failed]],
  );
  const deliveries = (await h.request('GET', `/webhook/${hook.json.data.id}/deliveries`, { auth: h.token })).json.data;
  assert.deepEqual(
    deliveries.map((d: { status: string }) => d.status),
    ['delivered', 'delivered'],
  );
});

test('a settlement nobody hears of reads the webhooks once too, and records no event', async (t) => {
  const h = await startService(t, { config: FAST });
  const receiver = await startReceiver(t);
  assert.equal(
    (
      await h.request('POST', '/webhook', {
        auth: h.token,
        body: { url: receiver.url(), events: ['task.image.generate.completed'] },
      })
    ).status,
    201,
  );
  const reads = countWebhookReads(h);
  const settled = await waitForTask(h, await task(h));
  await webhooksQuiet(h);
  assert.equal(reads(), 1);
  assert.equal(settled.status, 'completed');
  assert.equal(receiver.received.length, 0);
});
