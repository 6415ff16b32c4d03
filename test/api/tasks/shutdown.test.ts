import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { eventually, type Harness, startService } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Far longer than the test may take: a close() that waited for the grace would time the test out. */
const LONG_GRACE = { work: { shutdownGraceMs: 60_000, lanes: { test: 1 } } };

const started = async (runLog: string): Promise<string[]> =>
  (await readFile(runLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);

async function create(h: Harness, body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

test('close() with queued work stops once the running item is done, not after work.shutdownGraceMs; the queued tasks stay pending and run on the next start', {
  timeout: 20_000,
}, async (t) => {
  const h = await startService(t, { config: LONG_GRACE });
  const runLog = join(await tempDir(t), 'runs.log');
  // One short item running while close() starts; its lane then takes nothing more (paused), so the rest stays queued.
  const running = await create(h, { items: 1, delayMs: 300, runLog });
  await eventually(async () => (await started(runLog)).length === 1);
  h.server.services.lanes.get('test').pause();
  const queued: string[] = [];
  for (let i = 0; i < 5; i++) queued.push(await create(h, { items: 2, runLog }));

  // Resolves before the 60 s grace could end (the test's timeout is far shorter).
  await h.server.close();
  assert.deepEqual(await started(runLog), [`${running}:0:1`], 'no queued item ran in the stopped process');

  const config = loadConfig({
    env: {},
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 }, work: { retryBaseMs: 1 } }, h.storeConfig),
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
  const { store } = next.services;
  const first = (await store.tasks.get(running))!;
  assert.equal(first.status, 'completed', 'the running item finished within the grace and was recorded');

  // Nothing was lost: the next start runs every queued task, each item once.
  await eventually(async () => (await store.tasks.countPending()) === 0, 10_000);
  for (const id of queued) assert.equal((await store.tasks.get(id))!.status, 'completed', `task ${id}`);
  const runs = await started(runLog);
  assert.equal(runs.length, 1 + queued.length * 2);
  assert.equal(new Set(runs).size, runs.length, 'each item ran once');
});
