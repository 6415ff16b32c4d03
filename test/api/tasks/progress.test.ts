import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TaskProgress } from '../../../src/api/routes/tasks/schemas.js';
import { eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';

/** Items run one at a time: a second task waits behind the first. */
const ONE_AT_A_TIME = { work: { lanes: { test: 1 } } };

const create = async (h: Harness, body: object): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
};
const get = async (h: Harness, taskId: string) => {
  const res = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.json.data;
};
/** Waits until GET /tasks/{id} shows item `index` of `taskId` at `fraction`. */
const reported = (h: Harness, taskId: string, index: number, fraction: number) =>
  eventually(async () => (await get(h, taskId)).progress?.items[index].fraction === fraction);

test('GET /tasks/{id} of a pending task has progress with the running item’s fraction; once settled, no progress', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  // A task run to its end first: the lane has an item time, from which the end of the next is estimated.
  await waitForTask(h, await create(h, { items: 1 }));
  const taskId = await create(h, { items: 2, progressSteps: [0.25, 0.5], delayMs: 60_000 });
  await reported(h, taskId, 0, 0.5);
  const pending = await get(h, taskId);
  assert.equal(pending.status, 'pending');
  TaskProgress.parse(pending.progress);
  assert.deepEqual(
    pending.progress.items,
    [{ status: 'pending', fraction: 0.5 }, { status: 'pending' }],
    'the running item has its fraction, the queued one none',
  );
  assert.deepEqual([pending.progress.total, pending.progress.finished], [2, 0]);
  assert.equal(pending.progress.queuePosition, undefined, 'an item of it has started: no queue position');
  assert.equal(pending.progress.estimatedStartAt, undefined, 'started: no start estimate');
  assert.ok(
    Date.parse(pending.progress.estimatedFinishAt) >= Date.parse(pending.createdAt) - 1000,
    `an estimate of its end: ${pending.progress.estimatedFinishAt}`,
  );

  assert.equal((await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey })).status, 200);
  const settled = await waitForTask(h, taskId);
  assert.equal(settled.status, 'failed');
  assert.equal('progress' in settled, false, 'a settled task has no progress');
});

test("queue position: items ahead of it in its lane's order while none of its items has started, then none", async (t) => {
  // On PostgreSQL a process takes as many tasks as twice its widest lane (or defaultConcurrency): room here for all
  // four.
  const h = await startService(t, { config: { work: { lanes: { test: 1 }, defaultConcurrency: 4 } } });
  const first = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1);
  const second = await create(h, { items: 2, delayMs: 60_000 });
  const third = await create(h, { items: 1, delayMs: 60_000 });
  const fourth = await create(h, { items: 1, delayMs: 60_000 });
  // One account: arrival order. The second task's two items are both ahead of the third.
  await eventually(async () => (await get(h, fourth)).progress?.queuePosition === 3);
  assert.equal((await get(h, third)).progress.queuePosition, 2);
  assert.equal((await get(h, second)).progress.queuePosition, 0, 'next in its lane');
  assert.equal((await get(h, first)).progress.queuePosition, undefined, 'running');
  const queued = (await get(h, third)).progress;
  TaskProgress.parse(queued);
  assert.equal(queued.estimatedStartAt, undefined, 'no item of the lane has finished yet: no estimate');

  // The first settles: the second starts, and, with its second item still waiting, stays ahead of the third.
  assert.equal((await h.request('POST', `/tasks/${first}/cancel`, { auth: h.apiKey })).status, 200);
  await eventually(async () => (await get(h, second)).progress?.queuePosition === undefined);
  assert.equal(
    (await get(h, third)).progress.queuePosition,
    1,
    'the second, started, still has an item waiting ahead of it',
  );
  // The second settles (its waiting item passes at once): the third starts.
  assert.equal((await h.request('POST', `/tasks/${second}/cancel`, { auth: h.apiKey })).status, 200);
  await eventually(async () => (await get(h, third)).progress?.queuePosition === undefined);
  assert.equal((await get(h, fourth)).progress.queuePosition, 0, 'next');
  for (const id of [third, fourth])
    assert.equal((await h.request('POST', `/tasks/${id}/cancel`, { auth: h.apiKey })).status, 200);
});

test('GET /tasks/{id}/status stays exactly { data: { status } } while a task runs with progress', async (t) => {
  const h = await startService(t);
  const taskId = await create(h, { items: 1, progressSteps: [0.5], delayMs: 60_000 });
  await reported(h, taskId, 0, 0.5);
  const status = await h.request('GET', `/tasks/${taskId}/status`, { auth: h.apiKey });
  assert.equal(status.status, 200);
  assert.deepEqual(status.json, { data: { status: 'pending' } });
  assert.equal((await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey })).status, 200);
});

test('the operator dashboard shows pending tasks’ progress: the running one’s items with their fraction, the queued one’s position; none once settled', async (t) => {
  const h = await startService(t, { config: { work: { lanes: { test: 1 }, defaultConcurrency: 4 } } });
  const running = await create(h, { items: 1, progressSteps: [0.5], delayMs: 60_000 });
  await reported(h, running, 0, 0.5);
  const queued = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(async () => (await get(h, queued)).progress?.queuePosition === 0);
  const figures = await h.server.services.operator.dashboard();
  const row = (id: string) => figures.tasks.find((task) => task.id === id)!;
  assert.deepEqual(row(running).progress?.items, [{ status: 'pending', fraction: 0.5 }]);
  assert.equal(row(queued).progress?.queuePosition, 0);
  for (const id of [running, queued])
    assert.equal((await h.request('POST', `/tasks/${id}/cancel`, { auth: h.apiKey })).status, 200);
  const after = await h.server.services.operator.dashboard();
  assert.ok(after.tasks.every((task) => task.progress === undefined));
});
