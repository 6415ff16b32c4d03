import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { JsonStore } from '../../src/store/file/json-store.js';
import { runCli } from '../helpers/cli.js';
import { startFixture } from '../helpers/fixture-server.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/** A data dir with an account (10 USD) and a key, a run log, and a fixture server on it. */
async function setup(t: TestContext) {
  const data = await tempDir(t);
  const log = join(data, 'runs.log');
  await writeFile(log, '');
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '10']);
  const key: string = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  return { data, log, key, fixture: await startFixture(data) };
}

const runsPerItem = async (log: string) => {
  const counts = new Map<number, number>();
  for (const line of (await readFile(log, 'utf8')).trim().split('\n')) {
    const index = Number(line.split(':')[1]);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  return counts;
};

async function waitForSettled(url: string, key: string, taskId: string) {
  let task: { status: string; cost: string } | undefined;
  await eventually(async () => {
    task = (await send(url, 'GET', `/tasks/${taskId}`, { auth: key })).json.data;
    return task!.status !== 'pending';
  }, 20_000);
  return task!;
}

test('a server killed with SIGKILL mid-task runs only the unfinished items after a restart and charges once', async (t) => {
  const { data, log, key, fixture } = await setup(t);
  let server = fixture;
  closeBeforeRemoval(data, async () => server.child.kill('SIGKILL'));

  const created = await send(server.url, 'POST', '/test/tasks', {
    auth: key,
    body: { items: 6, price: '0.5', delayMs: 300, runLog: log },
  });
  const { taskId } = created.json.data;
  // Two items run at a time and a lane slot frees only once its item is journaled: when a third
  // item starts, at least one item is durably done.
  await eventually(async () => (await readFile(log, 'utf8')).trim().split('\n').length >= 3, 10_000);
  server.child.kill('SIGKILL');
  await server.exited;

  const store = await JsonStore.open({ dir: join(data, 'store'), snapshotOnClose: false });
  const before = (await store.tasks.get(taskId))!;
  const doneBefore = before.items.flatMap((item, index) => (item.status === 'success' ? [index] : []));
  await store.close();
  assert.equal(before.status, 'pending');
  assert.ok(doneBefore.length >= 1 && doneBefore.length < 6, `done before the kill: ${doneBefore}`);

  server = await startFixture(data);
  const task = await waitForSettled(server.url, key, taskId);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '3');

  const runs = await runsPerItem(log);
  for (const index of doneBefore)
    assert.equal(runs.get(index), 1, `item ${index} finished before the kill and must not run again`);
  for (let index = 0; index < 6; index++) assert.ok((runs.get(index) ?? 0) >= 1, `item ${index} ran`);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  const shown = await runCli(['--data', data, 'accounts', 'show', 'acme', '--json']);
  assert.equal(shown.json.balance, '7', 'charged exactly once: 10 − 6 × 0.5');
  assert.equal(shown.json.reserved, '0');
  const doctor = await runCli(['--data', data, 'doctor', '--json']);
  assert.equal(doctor.code, 0, doctor.stdout);
  assert.equal(doctor.json.ok, true);
});

test('SIGTERM lets running items finish, exits 0, and the queued items run after a restart', async (t) => {
  const { data, log, key, fixture } = await setup(t);
  let server = fixture;
  closeBeforeRemoval(data, async () => server.child.kill('SIGKILL'));

  const { taskId } = (
    await send(server.url, 'POST', '/test/tasks', {
      auth: key,
      body: { items: 4, price: '1', delayMs: 400, runLog: log },
    })
  ).json.data;
  await eventually(async () => (await readFile(log, 'utf8')).trim().split('\n').length >= 2, 10_000);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, `a SIGTERM drains and exits 0; its log:\n${server.log()}`);

  const store = await JsonStore.open({ dir: join(data, 'store'), snapshotOnClose: false });
  const after = (await store.tasks.get(taskId))!;
  await store.close();
  assert.deepEqual(
    after.items.map((item) => item.status),
    ['success', 'success', 'pending', 'pending'],
    'the two running items finished within the grace; the two queued ones were left pending',
  );

  server = await startFixture(data);
  const task = await waitForSettled(server.url, key, taskId);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '4');
  const runs = await runsPerItem(log);
  assert.deepEqual(
    [0, 1, 2, 3].map((index) => runs.get(index)),
    [1, 1, 1, 1],
  );
});
