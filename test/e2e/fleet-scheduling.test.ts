import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import { migrate, PgStore } from '../../src/store/postgres/postgres-store.js';
import { startMember, until } from '../helpers/fleet.js';
import { send } from '../helpers/harness.js';
import { testDatabase } from '../helpers/postgres.js';
import { mostAtOnce } from '../helpers/spans.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Who runs next across a fleet on one PostgreSQL database, as real child processes: an API-only
 * server takes the creates, two workers claim them (docs/scheduling.md). A key's maxConcurrent
 * holds fleet-wide; a deadline ends a task that waits unstarted in the database.
 */
const LEASE_MS = 3000;

async function startFleet(t: TestContext) {
  const url = await testDatabase(t);
  await migrate(url);
  const store = { driver: 'postgres', postgres: { url, poolSize: 4 } };
  const seedDir = await tempDir(t);
  const seed = (
    await openServices({
      dataDir: seedDir,
      config: loadConfig({ env: {}, overrides: { store } }),
      log: () => undefined,
    })
  ).internals;
  const capped = await seed.accounts.create('capped', 100 * 1_000_000);
  const other = await seed.accounts.create('other', 100 * 1_000_000);
  const keys = {
    capped: (await seed.apiKeys.create({ accountId: capped.id, name: 'capped', maxConcurrent: 2 })).raw,
    other: (await seed.apiKeys.create({ accountId: other.id, name: 'other' })).raw,
  };
  await seed.close();
  const overrides = { store, work: { leaseMs: LEASE_MS, defaultConcurrency: 4, lanes: { test: 4 } } };
  const [api, w1, w2] = await Promise.all([
    startMember(t, 'api', seedDir, 'api', overrides),
    startMember(t, 'w1', seedDir, 'work', overrides),
    startMember(t, 'w2', seedDir, 'work', overrides),
  ]);
  const db = await PgStore.open({ url, poolSize: 2 });
  t.after(() => db.close());
  const create = async (key: string, body: object, headers: Record<string, string> = {}) => {
    const res = await send(api.url, 'POST', '/test/tasks', { auth: key, body, headers });
    assert.equal(res.status, 201, res.text);
    return res.json.data.taskId as string;
  };
  const settled = (ids: string[]) =>
    until('the tasks to settle', async () => {
      const tasks = await Promise.all(ids.map((id) => db.tasks.get(id)));
      return tasks.every((task) => task?.status !== 'pending') ? tasks : undefined;
    });
  return { db, keys, workers: [w1, w2], create, settled, seedDir };
}

test("a key's maxConcurrent holds across two worker processes; another account's work runs beside it on both", async (t) => {
  const fleet = await startFleet(t);
  const spanLog = join(fleet.seedDir, 'spans.log');
  const capped = new Set<string>();
  for (let n = 0; n < 6; n++) capped.add(await fleet.create(fleet.keys.capped, { items: 2, delayMs: 250, spanLog }));
  const others: string[] = [];
  for (let n = 0; n < 4; n++) others.push(await fleet.create(fleet.keys.other, { items: 2, delayMs: 250, spanLog }));
  const tasks = await fleet.settled([...capped, ...others]);
  assert.ok(
    tasks.every((task) => task?.status === 'completed'),
    'every task completed',
  );
  assert.equal(
    await mostAtOnce(spanLog, capped),
    2,
    'at most two items of the capped key at once across the fleet, and it used both',
  );
  const ranCapped = fleet.workers.map(
    (worker) => worker.items().filter((item) => capped.has(item.split(':')[0])).length,
  );
  assert.equal(
    ranCapped.reduce((a, b) => a + b, 0),
    12,
    `every item of the capped key ran once: ${ranCapped}`,
  );
  assert.ok(
    fleet.workers.every((worker) => worker.items().length > 0),
    'both workers took work',
  );
});

test('a deadline ends a task still waiting in the database, free, with TASK_EXPIRED; one that finished in time is charged', async (t) => {
  const fleet = await startFleet(t);
  // Both workers' `test` lanes are full (4 slots each, 2 claimed queued behind): the task waits unclaimed.
  const blockers: string[] = [];
  for (let n = 0; n < 12; n++) blockers.push(await fleet.create(fleet.keys.other, { items: 1, delayMs: 4000 }));
  await until('the blockers to start', async () =>
    fleet.workers.reduce((sum, worker) => sum + worker.items().length, 0) >= 8 ? true : undefined,
  );
  const late = await fleet.create(fleet.keys.other, { items: 1, delayMs: 10 }, { 'cancel-after': '1s' });
  const quick = await fleet.create(
    fleet.keys.capped,
    { items: 1, delayMs: 10, priority: 0 },
    { 'cancel-after': '20s' },
  );
  const [expired] = await until('the deadline to pass', async () => {
    const task = await fleet.db.tasks.get(late);
    return task?.status === 'pending' ? undefined : [task!];
  });
  assert.equal(expired.status, 'failed');
  assert.equal(expired.errors?.[0].code, 'TASK_EXPIRED');
  assert.equal(expired.cost, 0, 'free');
  assert.equal(expired.items[0].error?.code, 'TASK_EXPIRED');
  const startedLate = fleet.workers.some((worker) => worker.items().some((item) => item.startsWith(`${late}:`)));
  assert.equal(startedLate, false, 'it never ran');
  const [done] = await fleet.settled([quick]);
  assert.equal(done?.status, 'completed', 'a task whose deadline had not passed ran to its end');
  assert.ok(done!.cost > 0);
  await fleet.settled(blockers);
});
