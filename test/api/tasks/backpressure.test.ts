// Backpressure: creates behind more queued work than limits.maxQueueDelaySeconds are refused
// with 429 and Retry-After, estimated from the lane's recent item times.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountOf, eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One test task at a time in the `test` lane, and at most 1 s of queued work taken. */
const BOUNDED = { limits: { maxQueueDelaySeconds: 1 }, work: { lanes: { test: 1 } } };

async function create(h: Harness, body: Record<string, unknown>) {
  return h.request('POST', '/test/tasks', { auth: h.apiKey, body });
}

async function createTask(h: Harness, body: Record<string, unknown>): Promise<string> {
  const res = await create(h, body);
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

/** Waits until the task's first item has started (test tasks log each attempt to `runLog`). */
async function untilStarted(runLog: string, taskId: string): Promise<void> {
  await eventually(async () => (await readFile(runLog, 'utf8').catch(() => '')).includes(`${taskId}:0:`));
}

const retryAfterOf = (res: { headers: Headers }): number => {
  const value = res.headers.get('retry-after') ?? '';
  assert.match(value, /^\d+$/, 'Retry-After is whole seconds');
  return Number(value);
};

test('a create behind more than maxQueueDelaySeconds of queued work is 429 with Retry-After, reserves nothing, and passes after that wait', async (t) => {
  const h = await startService(t, { config: BOUNDED });
  const runLog = join(await tempDir(t), 'runs.log');
  await waitForTask(h, await createTask(h, { delayMs: 300 })); // the lane's item time is now known: ~0.3 s
  // 8 items of 0.3 s, one at a time: 7 queued ≈ 2.1 s of work ahead of the next create.
  const backlog = await createTask(h, { items: 8, delayMs: 300, runLog });
  await untilStarted(runLog, backlog);

  const before = { account: await accountOf(h), pending: await h.server.services.store.tasks.countPending() };
  const refused = await create(h, { price: '1' });
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.json.code, 'RATE_LIMIT_EXCEEDED');
  assert.match(refused.json.message, /queued ahead/);
  const retryAfter = retryAfterOf(refused);
  assert.ok(
    retryAfter >= 1 && retryAfter <= 4,
    `Retry-After ${retryAfter}: the ~1 s of work over the bound, rounded up`,
  );
  assert.deepEqual(await accountOf(h), before.account, 'nothing reserved');
  assert.equal(await h.server.services.store.tasks.countPending(), before.pending, 'no task created');

  await sleep(retryAfter * 1000);
  assert.equal((await create(h, {})).status, 201, 'after Retry-After the backlog is under the bound');
  assert.equal((await waitForTask(h, backlog)).status, 'completed');
  assert.equal((await create(h, { items: 3 })).status, 201, 'drained');
});

test('a lane with no finished item is not refused on a guess; its longest running item stands for the item time', async (t) => {
  const h = await startService(t, { config: BOUNDED });
  const runLog = join(await tempDir(t), 'runs.log');
  const first = await createTask(h, { items: 3, delayMs: 5000, runLog });
  await untilStarted(runLog, first);
  // Nothing has finished: only the few ms the first item has run so far are known.
  assert.equal((await create(h, {})).status, 201);

  await sleep(800); // 3 queued items × at least 0.8 s each: past the 1 s bound
  const refused = await create(h, {});
  assert.equal(refused.status, 429, refused.text);
  assert.ok(retryAfterOf(refused) >= 1);
});

test('maxQueueDelaySeconds applies per lane: a backlog in one lane does not refuse creates of another', async (t) => {
  const h = await startService(t, { config: BOUNDED });
  const runLog = join(await tempDir(t), 'runs.log');
  await waitForTask(h, await createTask(h, { delayMs: 300 }));
  const backlog = await createTask(h, { items: 8, delayMs: 300, runLog });
  await untilStarted(runLog, backlog);
  assert.equal((await create(h, {})).status, 429, 'the test lane is full');
  const generated = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a kite' } });
  assert.equal(generated.status, 201, generated.text);
});
