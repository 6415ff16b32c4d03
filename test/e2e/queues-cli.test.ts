// `imgtask queues`, `queues pause LANE` and `queues resume LANE`, on a running server's data dir
// (its admin socket on the file store, the database on PostgreSQL) and on a stopped one.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../../src/app/server.js';
import { deepMerge, type JsonObject, loadConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';
import { eventually, type Harness, startService, testStoreConfig, waitForTask } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/** `imgtask …` on `dataDir` with the store under test (a config file naming it). */
async function cliOn(t: Parameters<typeof startService>[0], dataDir: string, storeConfig: JsonObject) {
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(storeConfig));
  return (...args: string[]) => runCli(['--data', dataDir, '--config', configFile, ...args]);
}

const create = async (h: Harness, body: object): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
};

test('imgtask queues on a running server: the lanes as a table and as JSON; pause and resume; resuming a lane not paused, or an empty name, exits 2', async (t) => {
  const h = await startService(t, { config: { work: { lanes: { test: 1 } } } });
  const cli = await cliOn(t, h.dataDir, h.storeConfig);
  const running = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1, 10_000);
  await create(h, { items: 1 });

  // On PostgreSQL the running count comes from each process's report, every 2 s.
  let json: any;
  await eventually(async () => {
    json = (await cli('queues', '--json')).json;
    return json?.find((lane: { lane: string }) => lane.lane === 'test')?.running === 1;
  }, 15_000);
  const lane = json.find((l: { lane: string }) => l.lane === 'test');
  assert.deepEqual(
    [lane.queued, lane.running, lane.capacity, lane.paused, typeof lane.oldestQueuedSeconds],
    [1, 1, 1, false, 'number'],
  );
  assert.deepEqual(
    lane.topAccounts.map((top: { account: string; name: string }) => [top.account, top.name]),
    [[h.accountId, 'acme']],
  );

  const text = await cli('queues');
  assert.equal(text.code, 0, text.stderr);
  const [header, ...rows] = text.stdout.trimEnd().split('\n');
  assert.match(header, /^LANE\s+QUEUED\s+RUNNING\s+CAPACITY\s+OLDEST WAIT\s+STATE\s+TOP ACCOUNTS \(QUEUED\)$/);
  assert.match(rows.find((row) => row.startsWith('test '))!, /^test\s+1\s+1\s+1\s+\d+s\s+active\s+acme \d+$/);

  const paused = await cli('queues', 'pause', 'test');
  assert.equal(paused.code, 0, paused.stderr);
  assert.match(
    paused.stdout,
    /^paused test \(since \d{4}-\d\d-\d\dT[\d:.]+Z\): queued items wait until imgtask queues resume test\n$/,
  );
  const whilePaused = await cli('queues');
  assert.match(
    whilePaused.stdout.split('\n').find((row) => row.startsWith('test '))!,
    /^test\s+1\s+\d\s+1\s+\d+s\s+paused\s+acme \d+$/,
  );

  const resumed = await cli('queues', 'resume', 'test', '--json');
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(resumed.json, { lane: 'test', paused: false });
  const again = await cli('queues', 'resume', 'test');
  assert.equal(again.code, 2);
  assert.equal(
    again.stderr.trim(),
    'imgtask: VALIDATION_ERROR: the lane "test" is not paused (imgtask queues shows the paused lanes)',
  );
  const empty = await cli('queues', 'pause', '');
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /^imgtask: VALIDATION_ERROR: lane: the lane name is empty\n$/);
  assert.equal((await h.request('POST', `/tasks/${running}/cancel`, { auth: h.apiKey })).status, 200);
});

test("a pause from the CLI holds the running server's queued task while the running one ends; resume runs it", async (t) => {
  const h = await startService(t, { config: { work: { lanes: { test: 1 } } } });
  const cli = await cliOn(t, h.dataDir, h.storeConfig);
  const running = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1, 10_000);
  const queued = await create(h, { items: 1 });

  assert.equal((await cli('queues', 'pause', 'test')).code, 0);
  // Every process of the fleet applies it: here, the server's own lanes.
  await eventually(() => h.server.services.lanes.stats().test?.paused === true, 10_000);
  assert.equal((await h.request('POST', `/tasks/${running}/cancel`, { auth: h.apiKey })).status, 200);
  await sleep(1000);
  assert.equal(
    (await h.request('GET', `/tasks/${queued}`, { auth: h.apiKey })).json.data.status,
    'pending',
    'the queued task waits while the lane is paused',
  );

  assert.equal((await cli('queues', 'resume', 'test')).code, 0);
  assert.equal((await waitForTask(h, queued, 15_000)).status, 'completed');
});

test('imgtask queues on a stopped data dir: pause a lane not seen yet, list it (text and --json), and a server started later holds it; resume', async (t) => {
  const dataDir = await tempDir(t);
  const storeConfig = await testStoreConfig(t);
  const cli = await cliOn(t, dataDir, storeConfig);
  assert.equal((await cli('accounts', 'create', 'acme', '--credit', '1')).code, 0);

  const none = await cli('queues');
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, 'no lane has work queued or running, and none is paused\n');
  assert.deepEqual((await cli('queues', '--json')).json, []);

  const paused = await cli('queues', 'pause', 'gpu-1+gpu-2', '--json');
  assert.equal(paused.code, 0, paused.stderr);
  assert.equal(paused.json.lane, 'gpu-1+gpu-2');
  assert.equal(paused.json.paused, true);
  const listed = await cli('queues');
  assert.match(listed.stdout, /^gpu-1\+gpu-2\s+0\s+0\s+0\s+-\s+paused\s+-$/m);

  const config = loadConfig({ env: {}, overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 } }, storeConfig) });
  const server = await startServer({ dataDir, config, log: () => undefined });
  closeBeforeRemoval(dataDir, () => server.close());
  const held = (await server.services.engine.queues()).find((lane) => lane.lane === 'gpu-1+gpu-2');
  assert.equal(held?.paused, true, 'the pause is kept in the store');
  assert.equal(held?.pausedAt, paused.json.pausedAt);
  await server.close();

  const resumed = await cli('queues', 'resume', 'gpu-1+gpu-2');
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, 'resumed gpu-1+gpu-2\n');
  const refused = await cli('queues', 'resume', 'gpu-1+gpu-2', '--json');
  assert.equal(refused.code, 2);
  assert.equal(refused.json.error.code, 'VALIDATION_ERROR');
});
