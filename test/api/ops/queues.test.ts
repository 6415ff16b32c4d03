// The lanes as operators see and steer them: queues.list, queues.pause and queues.resume (the
// actions `imgtask queues` runs), and what GET /ready and GET /metrics say of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AdminResult, runAdminOp } from '../../../src/app/admin/ops.js';
import { callAdminSocket } from '../../../src/client/admin-socket-client.js';
import { AppError } from '../../../src/domain/errors.js';
import { eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';

/** One test item at a time: a second task waits behind the first. */
const ONE_AT_A_TIME = { work: { lanes: { test: 1 } } };

const create = async (h: Harness, body: object, key = h.apiKey): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth: key, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
};
const statusOf = async (h: Harness, taskId: string, key = h.apiKey) =>
  (await h.request('GET', `/tasks/${taskId}`, { auth: key })).json.data;
const testLane = async (h: Harness) =>
  (await runAdminOp(h.server.services.admin, 'queues.list', {})).find((lane) => lane.lane === 'test');

/** The value of one series in a Prometheus text exposition; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
const scrape = async (h: Harness) => (await fetch(`${h.url}/metrics`)).text();

test('queues: a lane with queued and running items, its top accounts named; a pause holds queued work while the running item finishes, creates are still 201, /ready names it with 200, /metrics shows it; resume starts the work', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const globex = await h.server.services.accounts.create('globex', 10_000_000);
  const globexKey = (await h.server.services.apiKeys.create({ accountId: globex.id, name: 'globex' })).raw;

  // Long enough to pause the lane while it runs, and to see it finish under the pause.
  const running = await create(h, { items: 1, delayMs: 3000 });
  await eventually(async () => (await testLane(h))?.running === 1, 10_000);
  const acmeQueued = await create(h, { items: 2 });
  const globexQueued = await create(h, { items: 1 }, globexKey);
  // On PostgreSQL the figures are the fleet's: running counts come from each process's report (every 2 s).
  await eventually(async () => {
    const lane = await testLane(h);
    return lane?.queued === 3 && lane.running === 1 && lane.capacity === 1;
  }, 10_000);
  const listed = (await testLane(h))!;
  assert.equal(listed.paused, false);
  assert.deepEqual(
    listed.topAccounts.map(({ account, name }) => ({ account, name })),
    [
      { account: h.accountId, name: 'acme' },
      { account: globex.id, name: 'globex' },
    ],
    'most queued first, each named',
  );
  assert.equal(listed.topAccounts[1].queued, 1);
  assert.ok(listed.oldestQueuedSeconds >= 0, `oldest wait ${listed.oldestQueuedSeconds}`);

  const pause = await runAdminOp(h.server.services.admin, 'queues.pause', { lane: 'test' });
  assert.equal(pause.lane, 'test');
  assert.equal(pause.paused, true);
  assert.ok(Date.parse(pause.pausedAt) > Date.now() - 60_000, `pausedAt ${pause.pausedAt}`);
  assert.equal((await statusOf(h, running)).status, 'pending', 'paused while the first item still runs');
  const again = await runAdminOp(h.server.services.admin, 'queues.pause', { lane: 'test' });
  assert.equal(again.pausedAt, pause.pausedAt, 'pausing a paused lane keeps its first time');

  // The running item finishes under the pause; the queued ones wait.
  assert.equal((await waitForTask(h, running, 15_000)).status, 'completed');
  await sleep(1000);
  for (const [id, key] of [
    [acmeQueued, h.apiKey],
    [globexQueued, globexKey],
  ]) {
    const task = await statusOf(h, id, key);
    assert.equal(task.status, 'pending', `${id} waits while the lane is paused`);
    assert.equal(task.progress.finished, 0, 'none of its items ran');
  }
  const waiting = await create(h, { items: 1 });
  await eventually(async () => {
    const lane = await testLane(h);
    return lane?.queued === 4 && lane.running === 0;
  }, 10_000);
  const held = (await testLane(h))!;
  assert.equal(held.paused, true);
  assert.equal(held.pausedAt, pause.pausedAt);
  assert.ok(
    held.oldestQueuedSeconds >= 1,
    `the oldest has waited since before the first item finished: ${held.oldestQueuedSeconds}`,
  );

  // The terminal dashboard's figures, as it reads them through the admin socket.
  const dashboard = await callAdminSocket<AdminResult<'dashboard'>>(h.server.services.layout.adminSocket, 'dashboard');
  assert.deepEqual(
    dashboard.lanes
      .filter((lane) => lane.lane === 'test')
      .map(({ queued, running, capacity, paused }) => ({ queued, running, capacity, paused })),
    [{ queued: 4, running: 0, capacity: 1, paused: true }],
  );

  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 200, 'a paused lane is not a 503');
  assert.deepEqual(ready.json, {
    data: {
      status: 'ready',
      pausedLanes: [{ lane: 'test', pausedAt: pause.pausedAt }],
      provenance: { state: 'signing' },
    },
  });

  // The figures are read at most every 2 s: a scrape may show the last reading for that long.
  await eventually(async () => sample(await scrape(h), 'imgtask_lane_queued_items{lane="test"}') === 4, 10_000);
  const text = await scrape(h);
  assert.equal(sample(text, 'imgtask_lane_running_items{lane="test"}'), 0);
  assert.equal(sample(text, 'imgtask_lane_capacity{lane="test"}'), 1);
  assert.ok((sample(text, 'imgtask_lane_oldest_queued_seconds{lane="test"}') ?? 0) >= 1);

  assert.deepEqual(await runAdminOp(h.server.services.admin, 'queues.resume', { lane: 'test' }), {
    lane: 'test',
    paused: false,
  });
  for (const id of [acmeQueued, waiting]) assert.equal((await waitForTask(h, id, 15_000)).status, 'completed');
  await eventually(async () => (await statusOf(h, globexQueued, globexKey)).status === 'completed', 15_000);
  assert.deepEqual(
    (await h.request('GET', '/ready')).json,
    { data: { status: 'ready', provenance: { state: 'signing' } } },
    'no pausedLanes once none is paused',
  );
  await assert.rejects(
    () => runAdminOp(h.server.services.admin, 'queues.resume', { lane: 'test' }),
    (err: AppError) =>
      err instanceof AppError && err.code === 'VALIDATION_ERROR' && /the lane "test" is not paused/.test(err.message),
  );
});

test('top accounts count the items each account has waiting, not those running', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const globex = await h.server.services.accounts.create('globex', 10_000_000);
  const globexKey = (await h.server.services.apiKeys.create({ accountId: globex.id, name: 'globex' })).raw;
  const running = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(async () => (await testLane(h))?.running === 1, 10_000);
  await create(h, { items: 1 });
  await create(h, { items: 2 }, globexKey);
  await eventually(async () => (await testLane(h))?.queued === 3, 10_000);
  // On PostgreSQL a task being claimed is for a moment in neither the database's waiting items nor a lane: wait for
  // both to show.
  await eventually(async () => (await testLane(h))?.topAccounts.length === 2, 10_000);
  assert.deepEqual((await testLane(h))?.topAccounts, [
    { account: globex.id, name: 'globex', queued: 2 },
    { account: h.accountId, name: 'acme', queued: 1 },
  ]);
  assert.equal((await h.request('POST', `/tasks/${running}/cancel`, { auth: h.apiKey })).status, 200);
});

test('queues.pause takes a lane not seen yet (it is listed, paused, with nothing in it) and refuses an empty name or control characters', async (t) => {
  const h = await startService(t);
  for (const lane of ['gpu-1+gpu-2', 'video:gpu-1']) {
    const paused = await runAdminOp(h.server.services.admin, 'queues.pause', { lane });
    assert.equal(paused.lane, lane);
  }
  const listed = await runAdminOp(h.server.services.admin, 'queues.list', {});
  for (const lane of ['gpu-1+gpu-2', 'video:gpu-1']) {
    const view = listed.find((l) => l.lane === lane);
    assert.ok(view, `${lane} is listed`);
    assert.deepEqual(
      { ...view, pausedAt: undefined },
      {
        lane,
        queued: 0,
        running: 0,
        capacity: 0,
        oldestQueuedSeconds: 0,
        paused: true,
        pausedAt: undefined,
        topAccounts: [],
      },
    );
  }
  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 200);
  assert.deepEqual(
    ready.json.data.pausedLanes.map((p: { lane: string }) => p.lane),
    ['gpu-1+gpu-2', 'video:gpu-1'],
  );

  for (const [lane, reason] of [
    ['', /lane: the lane name is empty/],
    ['image.rate\nx', /lane: the lane name has control characters/],
    ['\u001b[31mred', /control characters/],
    ['x'.repeat(300), /longer than 256 characters/],
  ] as const) {
    for (const op of ['queues.pause', 'queues.resume'] as const) {
      await assert.rejects(
        () => runAdminOp(h.server.services.admin, op, { lane }),
        (err: AppError) => err instanceof AppError && err.code === 'VALIDATION_ERROR' && reason.test(err.message),
      );
    }
  }
  assert.deepEqual(
    (await runAdminOp(h.server.services.admin, 'queues.list', {})).map((l) => l.lane),
    ['gpu-1+gpu-2', 'video:gpu-1'],
    'nothing refused was paused',
  );
  assert.deepEqual(await runAdminOp(h.server.services.admin, 'queues.resume', { lane: 'video:gpu-1' }), {
    lane: 'video:gpu-1',
    paused: false,
  });
});

test('/metrics reads the lanes once for scrapes within 2 s', async (t) => {
  const h = await startService(t);
  const { engine } = h.server.services;
  const queues = engine.queues;
  let reads = 0;
  engine.queues = () => {
    reads += 1;
    return queues();
  };
  t.after(() => {
    engine.queues = queues;
  });
  await Promise.all([scrape(h), scrape(h), scrape(h)]);
  await scrape(h);
  assert.equal(reads, 1, 'four scrapes (of four gauges each) within 2 s: one read');
  await sleep(2100);
  await scrape(h);
  assert.equal(reads, 2, 'read again once the reading is 2 s old');
});
