// A cancel (and a stop) aborts the HTTP requests its task's items have under way: each fetch and upload takes the
// item's signal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { type Harness, startService } from '../../helpers/harness.js';
import { allClosed, startStallingServer } from '../../helpers/stalling-server.js';

/** Loopback URLs allowed, and deadlines far past the test's bound: only an abort closes a stalled request in time. */
const CONFIG = {
  fetch: { allowPrivateAddresses: true, timeoutMs: 120_000 },
  destinations: { allowPrivateAddresses: true, timeoutMs: 120_000 },
  work: { lanes: { 'image.rate': 2 } },
};

async function cancel(h: Harness, taskId: string): Promise<void> {
  const res = await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.errors[0].code, 'TASK_CANCELLED');
}

test('cancelling a rate task aborts the fetches of both its URLs at once', async (t) => {
  const h = await startService(t, { config: CONFIG });
  const slow = await startStallingServer(t);
  const res = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [slow.url('/a.png'), slow.url('/b.png')], sync: false },
  });
  assert.equal(res.status, 202, res.text);
  const fetches = await slow.arrived(2);
  assert.deepEqual(fetches.map((r) => r.path).sort(), ['/a.png', '/b.png']);

  await cancel(h, res.json.data.task.id);
  await allClosed(fetches);
});

test('cancelling a generation aborts the fetch of its input image (prepare) at once', async (t) => {
  const h = await startService(t, { config: CONFIG });
  const slow = await startStallingServer(t);
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', inputs: [slow.url('/input.png')] },
  });
  assert.equal(res.status, 201, res.text);
  const fetches = await slow.arrived(1);

  await cancel(h, res.json.data.taskId);
  await allClosed(fetches);
});

test("cancelling a generation aborts its image's upload to an HTTP destination at once", async (t) => {
  const h = await startService(t, { config: CONFIG });
  const slow = await startStallingServer(t);
  const made = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'slow', provider: { id: 'http' }, config: { urlTemplate: slow.url('/bucket/{key}') } },
  });
  assert.equal(made.status, 201, made.text);
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', destination: 'slow' },
  });
  assert.equal(res.status, 201, res.text);
  const uploads = await slow.arrived(1);
  assert.equal(uploads[0].method, 'PUT');

  await cancel(h, res.json.data.taskId);
  await allClosed(uploads);
});

test('stopping the server aborts the fetches still running after the grace; their items stay pending for the next start', async (t) => {
  const h = await startService(t, { config: CONFIG });
  const slow = await startStallingServer(t);
  const res = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [slow.url('/a.png'), slow.url('/b.png')], sync: false },
  });
  const taskId = res.json.data.task.id;
  const fetches = await slow.arrived(2);

  await h.server.close(); // the harness's grace is 200 ms
  await allClosed(fetches);

  const config = loadConfig({
    env: {},
    overrides: deepMerge(deepMerge({ server: { host: '127.0.0.1', port: 0 } }, CONFIG), h.storeConfig),
  });
  const next = await startServer({
    dataDir: h.dataDir,
    config,
    taskTypes: [testTaskType as never],
    providers: fakeProviders(),
    extendApi: mountTestRoutes,
    log: () => undefined,
  });
  t.after(() => next.close());
  const task = (await next.services.store.tasks.get(taskId))!;
  assert.equal(task.status, 'pending', 'an aborted fetch does not fail the task');
  assert.deepEqual(
    task.items.map((item) => item.status),
    ['pending', 'pending'],
  );
  await slow.arrived(4); // the next start fetches both URLs again
});
