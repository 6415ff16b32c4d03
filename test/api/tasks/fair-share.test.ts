import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, type Harness, startService } from '../../helpers/harness.js';
import { mostAtOnce } from '../../helpers/spans.js';

/**
 * Who runs next, over HTTP on either store (docs/scheduling.md): accounts take turns in a lane,
 * by weight; priority goes first; a key's maxConcurrent holds. The `test` lane runs one item at a
 * time (or as set), and each item appends `taskId:index:attempt` to a run log when it starts.
 */
const lane = (slots: number) => ({ work: { lanes: { test: slots }, defaultConcurrency: 4 } });

/** Another account with credit and a key; answers the raw key. */
async function otherAccount(
  h: Harness,
  name: string,
  options: { weight?: number; maxConcurrent?: number; maxPriority?: number } = {},
): Promise<string> {
  const { services } = h.server;
  const account = await services.accounts.create(name, 100 * 1_000_000);
  if (options.weight !== undefined) await services.accounts.setWeight(account.id, options.weight);
  const { raw } = await services.apiKeys.create({
    accountId: account.id,
    name,
    maxConcurrent: options.maxConcurrent,
    maxPriority: options.maxPriority,
  });
  return raw;
}

const create = async (h: Harness, auth: string, body: object): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
};

/** Waits for a task of any account to settle (read from the store: the harness key reads only its own). */
const waitForTask = (h: Harness, id: string) =>
  eventually(async () => (await h.server.services.store.tasks.get(id))?.status !== 'pending', 15_000);

/** The tasks in the order their first item started. */
const starts = async (runLog: string): Promise<string[]> =>
  (await readFile(runLog, 'utf8'))
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(':')[0]);

test("one account's burst does not hold up another's task: it waits for about one item, not the burst", async (t) => {
  const h = await startService(t, { config: lane(1) });
  const runLog = join(h.dataDir, 'runs.log');
  const other = await otherAccount(h, 'other');
  const burst = await Promise.all(Array.from({ length: 12 }, () => create(h, h.apiKey, { delayMs: 40, runLog })));
  const startedBefore = (await starts(runLog).catch(() => [])).length;
  const late = await create(h, other, { delayMs: 40, runLog });
  await waitForTask(h, late);
  for (const id of burst) await waitForTask(h, id);
  const order = await starts(runLog);
  const waited = order.indexOf(late) - startedBefore;
  assert.ok(
    waited <= 2,
    `${waited} of the burst's items started after the other account's task was created and before it (of ${12 - startedBefore} still waiting): ${order.join(' ')}`,
  );
});

test('weights: an account of weight 3 starts three items for every one of an account of weight 1', async (t) => {
  const h = await startService(t, { config: lane(1) });
  const runLog = join(h.dataDir, 'runs.log');
  const heavy = await otherAccount(h, 'heavy', { weight: 3 });
  const light = await otherAccount(h, 'light');
  // A long item holds the lane while both backlogs queue.
  const blocker = await create(h, h.apiKey, { delayMs: 600, runLog });
  await eventually(async () => (await starts(runLog).catch(() => [])).length === 1);
  const mine = new Map<string, string>();
  for (let n = 0; n < 12; n++) {
    mine.set(await create(h, heavy, { delayMs: 15, runLog }), 'heavy');
    mine.set(await create(h, light, { delayMs: 15, runLog }), 'light');
  }
  for (const id of [blocker, ...mine.keys()]) await waitForTask(h, id);
  const first16 = (await starts(runLog)).filter((id) => id !== blocker).slice(0, 16);
  const heavyStarts = first16.filter((id) => mine.get(id) === 'heavy').length;
  assert.ok(heavyStarts >= 11 && heavyStarts <= 13, `heavy started ${heavyStarts} of the first 16 (3:1 is 12)`);
});

test('a higher priority starts before the backlog, across accounts; a key may not ask above its maxPriority', async (t) => {
  const h = await startService(t, { config: lane(1) });
  const runLog = join(h.dataDir, 'runs.log');
  const urgentKey = await otherAccount(h, 'urgent', { maxPriority: 5 });
  const blocker = await create(h, h.apiKey, { delayMs: 400, runLog });
  await eventually(async () => (await starts(runLog).catch(() => [])).length === 1);
  const backlog: string[] = [];
  for (let n = 0; n < 6; n++) backlog.push(await create(h, h.apiKey, { delayMs: 10, runLog }));
  const refused = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { priority: 1 } });
  assert.equal(refused.status, 400, 'the harness key has the default maxPriority 0');
  assert.match(refused.json.message, /maxPriority 0/);
  const urgent = await create(h, urgentKey, { delayMs: 10, runLog, priority: 5 });
  const shown = await h.request('GET', `/tasks/${urgent}`, { auth: urgentKey });
  assert.equal(shown.json.data.priority, 5);
  assert.equal(shown.json.data.request.priority, 5, 'kept in the request too');
  for (const id of [blocker, ...backlog, urgent]) await waitForTask(h, id);
  const order = (await starts(runLog)).filter((id) => id !== blocker);
  assert.ok(
    order.indexOf(urgent) <= 1,
    `priority 5 started ${order.indexOf(urgent) + 1}th after the blocker: ${order.join(' ')}`,
  );
});

test("a key's maxConcurrent holds however many of its tasks wait; the account's other key and other accounts go on", async (t) => {
  const h = await startService(t, { config: lane(4) });
  const spanLog = join(h.dataDir, 'spans.log');
  const capped = await otherAccount(h, 'capped', { maxConcurrent: 2 });
  const ids = new Set<string>();
  for (let n = 0; n < 6; n++) ids.add(await create(h, capped, { items: 2, delayMs: 120, spanLog }));
  const free = await create(h, h.apiKey, { items: 2, delayMs: 120, spanLog });
  for (const id of [...ids, free]) await waitForTask(h, id);
  assert.equal(await mostAtOnce(spanLog, ids), 2, 'at most two of the capped key at once, and it used both');
  assert.equal(await mostAtOnce(spanLog, new Set([free])), 2, 'the other key ran its two items at once beside them');
});
