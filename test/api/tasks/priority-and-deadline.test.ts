// A create's priority (bounded by its key's maxPriority) and its Cancel-After deadline, over real HTTP on every create
// route.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, type JsonObject, loadConfig } from '../../../src/config/load.js';
import { checkLedger } from '../../../src/services/doctor.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { accountOf, eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';
import { allClosed, startStallingServer } from '../../helpers/stalling-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One item at a time in the test lane: a second task waits behind the first. */
const ONE_AT_A_TIME = { work: { lanes: { test: 1 } } };

/** Each create route with a body it accepts (`url`: an uploaded image's id). */
const ROUTES = (url: string): [path: string, body: Record<string, unknown>][] => [
  ['/image/generate', { prompt: 'a lighthouse' }],
  ['/image/rate', { mode: 'nsfw_sfw', urls: [url], sync: false }],
  ['/image/alt', { urls: [url], sync: false }],
  ['/image/remove-background', { url }],
  ['/image/review', { url, sync: false }],
  ['/video/generate', { prompt: 'a fox in snow', duration_s: 1, fps: 8 }],
];

/** The created task's id, from a 201 (async) or 202 (rate, alt, review) answer. */
const taskIdOf = (json: { data: { taskId?: string; task?: { id: string } } }): string =>
  json.data.taskId ?? json.data.task!.id;

async function uploadImage(h: Harness): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage())]), 'photo.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { files: { id: string }[] } }).data.files[0].id;
}

/** A key of the harness account made over POST /api-key, with `maxPriority`. */
async function keyWith(h: Harness, maxPriority: number): Promise<string> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body: { name: `max ${maxPriority}`, maxPriority } });
  assert.equal(res.status, 201, res.text);
  return res.json.data.raw;
}

const getTask = async (h: Harness, id: string) =>
  (await h.request('GET', `/tasks/${id}`, { auth: h.apiKey })).json.data;
const taskCount = async (h: Harness) =>
  (await h.request('GET', '/tasks?limit=100', { auth: h.apiKey })).json.data.length;

async function createTest(h: Harness, body: Record<string, unknown>, cancelAfter?: string): Promise<string> {
  const res = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body,
    headers: cancelAfter ? { 'cancel-after': cancelAfter } : {},
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

/** The settlements the bus reported, by task id. */
function settlements(h: Harness): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  h.server.services.events.on('task:settled', ({ kind, task }) =>
    seen.set(task.id, [...(seen.get(task.id) ?? []), kind]),
  );
  return seen;
}

/** An account's balance and reserve. */
const money = (account: { balance: string; reserved: string }) => [account.balance, account.reserved];

const started = async (runLog: string): Promise<string[]> =>
  (await readFile(runLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const testLane = (h: Harness) => h.server.services.lanes.stats().test ?? { running: 0, queued: 0 };

test('priority is accepted on each of the six create routes, kept in the request and shown on the task; 0 when not sent', async (t) => {
  const h = await startService(t);
  const url = await uploadImage(h);
  const high = await keyWith(h, 5);
  for (const [path, body] of ROUTES(url)) {
    const res = await h.request('POST', path, { auth: high, body: { ...body, priority: 5 } });
    assert.ok(res.status === 201 || res.status === 202, `${path}: ${res.text}`);
    const task = await getTask(h, taskIdOf(res.json));
    assert.equal(task.request.priority, 5, `${path}: kept in the request`);
    assert.equal(task.priority, 5, `${path}: shown on the task`);
    assert.equal(task.deadlineAt, undefined, `${path}: no deadline without Cancel-After`);

    const low = await h.request('POST', path, { auth: h.apiKey, body: { ...body, priority: -10 } });
    assert.equal((await getTask(h, taskIdOf(low.json))).priority, -10, `${path}: any key may ask for less`);
    const plain = await h.request('POST', path, { auth: h.apiKey, body });
    assert.equal((await getTask(h, taskIdOf(plain.json))).priority, 0, `${path}: the default`);
  }
});

test('a priority out of -10..10, or not a whole number, is a schema rejection naming the field', async (t) => {
  const h = await startService(t);
  const url = await uploadImage(h);
  const high = await keyWith(h, 10);
  for (const [path, body] of ROUTES(url)) {
    for (const [priority, code] of [
      [11, 'too_big'],
      [-11, 'too_small'],
      [2.5, 'invalid_type'],
      ['high', 'invalid_type'],
    ] as const) {
      const res = await h.request('POST', path, { auth: high, body: { ...body, priority } });
      const what = `${path} priority ${JSON.stringify(priority)}`;
      assert.equal(res.status, 400, what);
      assert.equal(res.json.success, false, what);
      assert.deepEqual(
        res.json.error.map((issue: { path: string[]; code: string }) => [issue.path, issue.code]),
        [[['priority'], code]],
        what,
      );
    }
  }
  assert.equal(await taskCount(h), 0);
});

test('a priority above the key’s maxPriority is refused on every route: 400 naming the limit, nothing created, nothing reserved', async (t) => {
  const h = await startService(t);
  const url = await uploadImage(h);
  const five = await keyWith(h, 5);
  for (const [path, body] of ROUTES(url)) {
    const res = await h.request('POST', path, { auth: h.apiKey, body: { ...body, priority: 1 } });
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    assert.deepEqual(
      res.json,
      { code: 'VALIDATION_ERROR', message: 'priority 1 is above the highest this key may ask for (maxPriority 0)' },
      path,
    );
    const over = await h.request('POST', path, { auth: five, body: { ...body, priority: 6 } });
    assert.equal(over.status, 400, path);
    assert.equal(over.json.message, 'priority 6 is above the highest this key may ask for (maxPriority 5)', path);
  }
  assert.equal(await taskCount(h), 0);
  assert.deepEqual(money(await accountOf(h)), ['100', '0'], 'no reserve is held');

  const atLimit = await h.request('POST', '/image/generate', { auth: five, body: { prompt: 'x', priority: 5 } });
  assert.equal(atLimit.status, 201, 'a key with maxPriority 5 may send 5');
  assert.equal((await waitForTask(h, atLimit.json.data.taskId)).priority, 5);
});

test('Cancel-After: malformed, too short or too long is 400 naming the header on every route, nothing created; a valid one sets deadlineAt', async (t) => {
  const h = await startService(t);
  const url = await uploadImage(h);
  for (const [path, body] of ROUTES(url)) {
    for (const [value, pattern] of [
      ['soon', /^Cancel-After: "soon" is not a duration such as 30s, 5m or 1h30m$/],
      ['1h30', /^Cancel-After: .* is not a duration/],
      ['', /^Cancel-After: .* is not a duration/],
      ['500ms', /^Cancel-After: 500ms is out of range: from 1s to 24h$/],
      ['25h', /^Cancel-After: 25h is out of range: from 1s to 24h$/],
    ] as const) {
      const res = await h.request('POST', path, { auth: h.apiKey, body, headers: { 'cancel-after': value } });
      const what = `${path} Cancel-After: "${value}"`;
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.json.code, 'VALIDATION_ERROR', what);
      assert.match(res.json.message, pattern, what);
    }
  }
  assert.equal(await taskCount(h), 0);
  assert.equal((await accountOf(h)).reserved, '0');

  for (const [path, body] of ROUTES(url)) {
    const before = Date.now();
    const res = await h.request('POST', path, { auth: h.apiKey, body, headers: { 'cancel-after': '1h30m' } });
    const after = Date.now();
    assert.ok(res.status === 201 || res.status === 202, `${path}: ${res.text}`);
    const task = await getTask(h, taskIdOf(res.json));
    assert.match(task.deadlineAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, `${path}: an ISO time with milliseconds`);
    const at = Date.parse(task.deadlineAt);
    assert.ok(
      at >= before + 5_400_000 && at <= after + 5_400_000,
      `${path}: deadlineAt is the create's time + 1h30m (${task.deadlineAt})`,
    );
    assert.equal(at, Date.parse(task.createdAt) + 5_400_000, `${path}: counted from createdAt`);
  }
});

test('Cancel-After: 1s on a task whose item runs long: TASK_EXPIRED within a couple of seconds, the item aborted, nothing charged, a failed event', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const seen = settlements(h);
  const runLog = join(await tempDir(t), 'runs.log');
  const createdAt = Date.now();
  const taskId = await createTest(h, { items: 2, price: '2', delayMs: 60_000, runLog }, '1s');
  await eventually(async () => (await started(runLog)).length === 1);
  assert.equal((await accountOf(h)).reserved, '4');

  const task = await waitForTask(h, taskId, 5000);
  const took = Date.now() - createdAt;
  assert.ok(took >= 900 && took < 3000, `ended about its deadline (after ${took} ms)`);
  assert.equal(task.status, 'failed');
  assert.equal(task.cost, '0');
  assert.deepEqual(task.errors, [
    {
      code: 'TASK_EXPIRED',
      message: 'the task’s deadline (Cancel-After) passed before any item finished; nothing was charged',
    },
  ]);
  assert.deepEqual(
    (await h.server.services.store.tasks.get(taskId))!.items.map((item) => item.error?.code),
    ['TASK_EXPIRED', 'TASK_EXPIRED'],
    'no item is left pending',
  );

  // The running item is aborted through its signal (not left sleeping its minute), the queued one never starts.
  await eventually(() => testLane(h).running === 0 && testLane(h).queued === 0, 2000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await started(runLog), [`${taskId}:0:1`]);
  assert.deepEqual(money(await accountOf(h)), ['100', '0']);
  await eventually(() => seen.has(taskId));
  assert.deepEqual(seen.get(taskId), ['task.test.echo.failed']);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('Cancel-After on a rate task closes the fetches its items have under way when the deadline passes', async (t) => {
  const h = await startService(t, {
    config: { fetch: { allowPrivateAddresses: true, timeoutMs: 120_000 }, work: { lanes: { 'image.rate': 2 } } },
  });
  const slow = await startStallingServer(t);
  const res = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [slow.url('/a.png'), slow.url('/b.png')], sync: false },
    headers: { 'cancel-after': '1s' },
  });
  assert.equal(res.status, 202, res.text);
  const fetches = await slow.arrived(2);
  await allClosed(fetches, 4000);
  const task = await waitForTask(h, res.json.data.task.id, 2000);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'TASK_EXPIRED');
  assert.equal(task.cost, '0');
});

test('a task with one item finished before its deadline settles by its type’s rules: completed, the finished item charged, the other TASK_EXPIRED', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const seen = settlements(h);
  // Items run one after another, 2 s each: the first finishes at about 2 s, the second would at 4 s; the deadline is at
  // 3 s.
  const taskId = await createTest(h, { items: 2, price: '2', delayMs: 2000 }, '3s');
  const task = await waitForTask(h, taskId, 8000);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '2', 'charged for the item that finished');
  assert.deepEqual(task.result.items[0], { index: 0, attempt: 1 });
  assert.equal(task.result.items[1].error.code, 'TASK_EXPIRED');
  assert.deepEqual(
    (await h.server.services.store.tasks.get(taskId))!.items.map((item) => item.error?.code ?? item.status),
    ['success', 'TASK_EXPIRED'],
  );
  assert.deepEqual(money(await accountOf(h)), ['98', '0']);
  await eventually(() => seen.has(taskId));
  assert.deepEqual(seen.get(taskId), ['task.test.echo.completed']);
  await eventually(() => testLane(h).running === 0, 2000);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('a task still queued behind a busy lane when its deadline passes fails TASK_EXPIRED without ever starting', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const runLog = join(await tempDir(t), 'runs.log');
  const blocker = await createTest(h, { items: 1, delayMs: 60_000, runLog });
  await eventually(async () => (await started(runLog)).length === 1);
  const queued = await createTest(h, { items: 3, price: '1', runLog }, '1s');
  assert.equal((await accountOf(h)).reserved, '3.01');

  const task = await waitForTask(h, queued, 4000);
  assert.equal(task.status, 'failed');
  assert.deepEqual(
    task.errors.map((e: { code: string }) => e.code),
    ['TASK_EXPIRED'],
  );
  assert.equal(task.cost, '0');
  assert.deepEqual(await started(runLog), [`${blocker}:0:1`], 'none of its items ever started');
  assert.equal((await getTask(h, blocker)).status, 'pending', 'the task ahead runs on');
  assert.equal((await accountOf(h)).reserved, '0.01', 'its reserve is released; the blocker’s stays');
  await eventually(() => testLane(h).queued === 0, 2000);
});

/** A second server on the harness's data dir and store, as after a restart. */
async function restart(h: Harness, t: TestContext, config: JsonObject) {
  const merged = loadConfig({
    env: {},
    overrides: deepMerge(deepMerge({ server: { host: '127.0.0.1', port: 0 } }, config), h.storeConfig),
  });
  const next = await startServer({
    dataDir: h.dataDir,
    config: merged,
    taskTypes: [testTaskType as never],
    providers: fakeProviders(),
    extendApi: mountTestRoutes,
    log: () => undefined,
  });
  t.after(() => next.close());
  return next;
}

test('a deadline survives a restart: a task whose deadline passed while the service was down is TASK_EXPIRED once it starts again', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const runLog = join(await tempDir(t), 'runs.log');
  const blocker = await createTest(h, { items: 1, delayMs: 60_000, runLog });
  await eventually(async () => (await started(runLog)).length === 1);
  const queued = await createTest(h, { items: 1, price: '1', runLog }, '2s');
  const { deadlineAt } = await getTask(h, queued);
  assert.equal((await getTask(h, queued)).status, 'pending');
  await h.server.close();

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(deadlineAt) - Date.now() + 200)));
  const next = await restart(h, t, ONE_AT_A_TIME);
  await eventually(async () => (await next.services.store.tasks.get(queued))!.status !== 'pending', 3000);
  const task = (await next.services.store.tasks.get(queued))!;
  assert.equal(task.status, 'failed');
  assert.deepEqual(
    task.errors?.map((e) => e.code),
    ['TASK_EXPIRED'],
  );
  assert.equal(task.cost, 0);
  assert.equal(
    (await next.services.store.tasks.get(blocker))!.status,
    'pending',
    'the task ahead, without a deadline, runs again',
  );
  assert.ok(!(await started(runLog)).some((line) => line.startsWith(queued)), 'the expired task never ran');
});

// At a start (a restart, or a claim on PostgreSQL) a task whose deadline has passed is expired by
// the runner before any item of it starts: no engine job is begun after the deadline.
test('after a restart past its deadline, an expired task does not run even where a slot is free for it', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const runLog = join(await tempDir(t), 'runs.log');
  await createTest(h, { items: 1, delayMs: 60_000, runLog });
  await eventually(async () => (await started(runLog)).length === 1);
  const queued = await createTest(h, { items: 1, price: '1', runLog }, '1s');
  const { deadlineAt } = await getTask(h, queued);
  await h.server.close();

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(deadlineAt) - Date.now() + 200)));
  // Two slots now: nothing holds the expired task back but its deadline.
  const next = await restart(h, t, { work: { lanes: { test: 2 } } });
  await eventually(async () => (await next.services.store.tasks.get(queued))!.status !== 'pending', 3000);
  const task = (await next.services.store.tasks.get(queued))!;
  assert.deepEqual([task.status, task.errors?.map((e) => e.code), task.cost], ['failed', ['TASK_EXPIRED'], 0]);
  assert.ok(!(await started(runLog)).some((line) => line.startsWith(queued)), 'the expired task never ran');
});

// A browser page on a listed origin sends Cancel-After as it sends Idempotency-Key: its preflight allows the header.
test('a page on a listed origin may send Cancel-After: the preflight allows the header', async (t) => {
  const origin = 'https://app.example.com';
  const h = await startService(t, { config: { cors: { origins: [origin] } } });
  const res = await h.request('OPTIONS', '/image/generate', {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,cancel-after',
    },
  });
  assert.equal(res.status, 204);
  assert.ok(
    res.headers.get('access-control-allow-headers')?.toLowerCase().split(',').includes('cancel-after'),
    `allowed: ${res.headers.get('access-control-allow-headers')}`,
  );
});
