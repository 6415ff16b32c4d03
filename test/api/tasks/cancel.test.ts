import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { checkLedger } from '../../../src/services/doctor.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { runCli } from '../../helpers/cli.js';
import { accountOf, eventually, type Harness, startService, testStore } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One item at a time in the test lane: the items of a task run one after another. */
const ONE_AT_A_TIME = { work: { lanes: { test: 1 } } };

async function create(
  h: Harness,
  body: Record<string, unknown>,
  auth = h.apiKey,
): Promise<{ taskId: string; pat?: string }> {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return { taskId: res.json.data.taskId, pat: res.json.data.access?.publicAccessToken };
}

const cancel = (h: Harness, taskId: string, auth: string | null = h.apiKey) =>
  h.request('POST', `/tasks/${taskId}/cancel`, { auth });

/** The settlements the bus reported, by task id. */
function settlements(h: Harness): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  h.server.services.events.on('task:settled', ({ kind, task }) =>
    seen.set(task.id, [...(seen.get(task.id) ?? []), kind]),
  );
  return seen;
}

const started = async (runLog: string): Promise<string[]> =>
  (await readFile(runLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);
const testLane = (h: Harness) => h.server.services.lanes.stats().test ?? { running: 0, queued: 0 };

test('cancelling a task with nothing finished fails it with TASK_CANCELLED, aborts the running item, never starts the queued ones and releases the reserve', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const seen = settlements(h);
  const runLog = join(await tempDir(t), 'runs.log');
  const { taskId } = await create(h, { items: 3, price: '2', delayMs: 60_000, runLog });
  await eventually(async () => (await started(runLog)).length === 1);
  assert.equal((await accountOf(h)).reserved, '6');

  const started0 = Date.now();
  const res = await cancel(h, taskId);
  assert.equal(res.status, 200, res.text);
  const task = res.json.data;
  assert.equal(task.id, taskId);
  assert.equal(task.status, 'failed');
  assert.equal(task.cost, '0');
  assert.deepEqual(
    task.errors.map((e: { code: string }) => e.code),
    ['TASK_CANCELLED'],
  );
  assert.deepEqual(
    (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data,
    task,
    'the answer is the task as GET /tasks/{id} shows it',
  );

  // The running item is aborted through its signal (not left sleeping its 60 s), the queued ones never start.
  await eventually(() => testLane(h).running === 0 && testLane(h).queued === 0);
  assert.ok(Date.now() - started0 < 5000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await started(runLog), [`${taskId}:0:1`], 'only the first item ever started, once');

  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
  await eventually(() => seen.has(taskId));
  assert.deepEqual(seen.get(taskId), ['task.test.echo.failed']);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('cancelling after some items succeeded keeps them charged: the task completes, the rest fail TASK_CANCELLED', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const seen = settlements(h);
  const { taskId } = await create(h, { items: 3, price: '2', delayMs: 300 });
  await eventually(async () => (await h.server.services.store.tasks.get(taskId))!.items[0].status === 'success');

  const res = await cancel(h, taskId);
  assert.equal(res.status, 200, res.text);
  const task = res.json.data;
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '2', 'charged for the one item that had succeeded');
  assert.deepEqual(task.result.items[0], { index: 0, attempt: 1 });
  for (const item of task.result.items.slice(1)) assert.equal(item.error.code, 'TASK_CANCELLED');
  assert.deepEqual(
    (await h.server.services.store.tasks.get(taskId))!.items.map((item) => item.error?.code ?? item.status),
    ['success', 'TASK_CANCELLED', 'TASK_CANCELLED'],
    'the stored items agree with the result: none is left pending',
  );

  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['98', '0']);
  await eventually(() => testLane(h).running === 0 && testLane(h).queued === 0);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(
    (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data.cost,
    '2',
    'the aborted item was never charged',
  );
  assert.deepEqual(seen.get(taskId), ['task.test.echo.completed']);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('a settled task cannot be cancelled: 409 TASK_NOT_PENDING naming its status, also for a second cancel', async (t) => {
  const h = await startService(t);
  const { taskId: pendingId } = await create(h, { items: 1, delayMs: 60_000 });
  assert.equal((await cancel(h, pendingId)).status, 200);
  for (let i = 0; i < 2; i++) {
    const again = await cancel(h, pendingId);
    assert.equal(again.status, 409);
    assert.equal(again.json.code, 'TASK_NOT_PENDING');
    assert.match(again.json.message, /failed/);
  }

  const { taskId: doneId } = await create(h, { items: 1 });
  await eventually(async () => (await h.server.services.store.tasks.get(doneId))!.status === 'completed');
  const done = await cancel(h, doneId);
  assert.equal(done.status, 409);
  assert.equal(done.json.code, 'TASK_NOT_PENDING');
  assert.match(done.json.message, /completed/);
  assert.equal(
    (await h.request('GET', `/tasks/${doneId}`, { auth: h.apiKey })).json.data.cost,
    '0.01',
    'the completed task is untouched',
  );
});

test('only the owner API key with tasks:cancel cancels: unknown and foreign tasks are 404, PATs and access tokens are refused', async (t) => {
  const h = await startService(t);
  const { taskId, pat } = await create(h, { items: 1, delayMs: 60_000 });
  const { services } = h.server;

  assert.equal((await cancel(h, 'tsk_unknown')).json.code, 'TASK_NOT_FOUND');
  const other = await services.accounts.create('other', 10_000_000);
  const { raw: otherKey } = await services.apiKeys.create({ accountId: other.id });
  const foreign = await cancel(h, taskId, otherKey);
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.json, { code: 'TASK_NOT_FOUND' });

  const { raw: readOnly } = await services.apiKeys.create({ accountId: h.accountId, scopes: ['tasks:read'] });
  const scoped = await cancel(h, taskId, readOnly);
  assert.equal(scoped.status, 403);
  assert.equal(scoped.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(scoped.json.scopes.required, ['tasks:cancel']);

  assert.ok(pat, 'the create answered a PAT');
  assert.equal((await cancel(h, taskId, pat!)).status, 401, "a PAT (even this task's) never cancels");
  assert.equal((await cancel(h, taskId, h.token)).status, 401, 'an access token is refused, as on GET /tasks/{id}');
  assert.equal((await cancel(h, taskId, null)).status, 401);
  const { pat: otherPat } = await create(h, { items: 1, delayMs: 60_000 });
  assert.equal((await cancel(h, taskId, otherPat!)).status, 404, "another task's PAT: TASK_NOT_FOUND");

  assert.equal(
    (await h.request('GET', `/tasks/${taskId}/status`, { auth: h.apiKey })).json.data.status,
    'pending',
    'no refused cancel touched the task',
  );
  const created = await services.apiKeys.create({ accountId: h.accountId });
  assert.ok(created.apiKey.scopes.includes('tasks:cancel'), 'new keys get tasks:cancel by default');
  assert.equal((await cancel(h, taskId)).status, 200);
});

test('100 cancel/complete races: each task settles once, the answer matches the task, and the ledger stays clean', async (t) => {
  const h = await startService(t);
  const seen = settlements(h);
  const outcomes = { cancelled: 0, partly: 0, tooLate: 0 };
  for (let round = 0; round < 10; round++) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const { taskId } = await create(h, { items: 2, price: '0.5', delayMs: (round + i) % 4 });
        await new Promise((resolve) => setTimeout(resolve, (round * 7 + i * 3) % 25));
        const res = await cancel(h, taskId);
        const task = (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data;
        if (res.status === 200) {
          assert.deepEqual(res.json.data, task);
          if (task.status === 'failed') {
            assert.deepEqual(task.errors, [
              { code: 'TASK_CANCELLED', message: 'the task was cancelled; nothing was charged' },
            ]);
            assert.equal(task.cost, '0');
            outcomes.cancelled++;
          } else {
            // Charged for exactly the items that had succeeded; the others were cancelled (none, when both had
            // finished).
            const succeeded = task.result.items.filter((item: { error?: unknown }) => !item.error).length;
            assert.ok(succeeded >= 1);
            assert.equal(task.cost, String(succeeded * 0.5));
            assert.equal(
              task.result.items.filter((item: { error?: { code: string } }) => item.error?.code === 'TASK_CANCELLED')
                .length,
              2 - succeeded,
            );
            outcomes.partly++;
          }
        } else {
          assert.equal(res.status, 409, res.text);
          assert.equal(res.json.code, 'TASK_NOT_PENDING');
          assert.equal(task.status, 'completed');
          assert.equal(task.cost, '1');
          outcomes.tooLate++;
        }
      }),
    );
  }
  assert.equal(outcomes.cancelled + outcomes.partly + outcomes.tooLate, 100);
  await eventually(() => [...seen.values()].reduce((n, kinds) => n + kinds.length, 0) >= 100);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(seen.size, 100);
  for (const [id, kinds] of seen) assert.equal(kinds.length, 1, `task ${id} settled ${kinds.length} times`);
  assert.equal(await h.server.services.store.tasks.countPending(), 0);
  assert.equal((await accountOf(h)).reserved, '0');
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
  t.diagnostic(`outcomes: ${JSON.stringify(outcomes)}`);
});

test('100 cancels racing items recorded in the same instant: the settlement counts exactly the items recorded before it', async (t) => {
  const h = await startService(t, { credit: 1000 });
  const { settlement: progress, store } = h.server.services;
  const seen = settlements(h);
  const success = (index: number) => ({
    status: 'success' as const,
    result: { index, attempt: 1 },
    cost: 500_000,
    attempts: 1,
  });
  const ids: string[] = [];
  for (let round = 0; round < 10; round++) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        // Items that sleep a minute: only the calls below finish them (the runner's are aborted by the settlement).
        const { taskId } = await create(h, { items: 2 + (i % 2), price: '0.5', delayMs: 60_000 });
        ids.push(taskId);
        // The cancel starts up to a few microtasks before or after the items, or a turn later.
        const later = async (steps: number) => {
          for (let n = 0; n < steps; n++) await Promise.resolve();
        };
        const shift = (round + i) % 8;
        const cancelling = (shift === 7 ? new Promise((resolve) => setImmediate(resolve)) : later(shift)).then(() =>
          progress.cancel(taskId),
        );
        await Promise.all([
          later(round % 4).then(() => progress.finishItem(taskId, 0, success(0))),
          cancelling,
          later(i % 3).then(() => progress.finishItem(taskId, 1, success(1))),
        ]);
      }),
    );
  }
  const statuses: Record<string, number> = {};
  for (const id of ids) {
    const task = (await store.tasks.get(id))!;
    statuses[`${task.status} ${task.cost}`] = (statuses[`${task.status} ${task.cost}`] ?? 0) + 1;
    const succeeded = task.items.filter((item) => item.status === 'success').length;
    assert.notEqual(task.status, 'pending');
    assert.equal(
      task.cost,
      succeeded * 500_000,
      `task ${id} (${task.status}) is charged for exactly its ${succeeded} recorded item(s)`,
    );
  }
  await eventually(() => seen.size === 100);
  for (const [id, kinds] of seen) assert.equal(kinds.length, 1, `task ${id} settled ${kinds.length} times`);
  assert.equal((await accountOf(h)).reserved, '0');
  assert.deepEqual((await checkLedger(store)).problems, []);
  t.diagnostic(`outcomes: ${JSON.stringify(statuses)}`);
});

test('imgtask tasks cancel ID prints the cancelled task; a second cancel exits 1 with TASK_NOT_PENDING', async (t) => {
  const h = await startService(t);
  const { taskId } = await create(h, { items: 1, delayMs: 60_000 });
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const first = await runCli(['tasks', 'cancel', taskId, '--json'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.json.id, taskId);
  assert.equal(first.json.status, 'failed');
  assert.equal(first.json.errors[0].code, 'TASK_CANCELLED');
  const again = await runCli(['tasks', 'cancel', taskId, '--json'], env);
  assert.equal(again.code, 1);
  assert.equal(again.json.error.code, 'TASK_NOT_PENDING');
  assert.equal(again.json.error.status, 409);
});

test('on PostgreSQL, a cancel made by another process aborts the item running here (through NOTIFY)', {
  skip: testStore() !== 'postgres' && 'PostgreSQL only',
}, async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const config = loadConfig({
    env: {},
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 } }, h.storeConfig),
  });
  const apiOnly = await startServer({
    dataDir: h.dataDir,
    config,
    role: 'api',
    taskTypes: [testTaskType as never],
    providers: fakeProviders(),
    extendApi: mountTestRoutes,
    log: () => undefined,
  });
  t.after(() => apiOnly.close());
  const runLog = join(await tempDir(t), 'runs.log');
  const { taskId } = await create(h, { items: 2, delayMs: 60_000, runLog });
  await eventually(() => testLane(h).running === 1);

  const res = await h.request('POST', '/tasks/x/cancel', { auth: h.apiKey });
  assert.equal(res.status, 404);
  const viaOther = await fetch(`${apiOnly.url}/tasks/${taskId}/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
  });
  assert.equal(viaOther.status, 200);
  assert.equal(((await viaOther.json()) as { data: { status: string } }).data.status, 'failed');
  await eventually(() => testLane(h).running === 0 && testLane(h).queued === 0, 3000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await started(runLog), [`${taskId}:0:1`]);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});
