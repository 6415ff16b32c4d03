import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLedger } from '../../../../src/services/doctor.js';
import { PgStore } from '../../../../src/store/postgres/postgres-store.js';
import type { TaskRecord } from '../../../../src/store/records/tasks.js';
import { outcomeCodes } from '../../../helpers/counts.js';
import { migratedSchema } from '../store-backends.js';

/**
 * Several processes on one database, as several `serve` processes are: each PgStore has its own
 * pool, so the money invariants must hold through the database's locks, not anything in memory.
 */
const AT = '2026-11-22T08:00:00.000Z';
const task = (n: number, estimate: number, apiKeyId: string | null = null): TaskRecord => ({
  id: `tsk_${String(n).padStart(4, '0')}`,
  type: 'image.generate',
  status: 'pending',
  accountId: 'acc_1',
  apiKeyId,
  request: { prompt: `p${n}` },
  items: [{ status: 'pending' }, { status: 'pending' }],
  estimate,
  cost: 0,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});

async function threeProcesses(t: import('node:test').TestContext, balance: number): Promise<PgStore[]> {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const stores = await Promise.all(
    [1, 2, 3].map((n) => PgStore.open({ url, poolSize: 6, applicationName: `imgtask-test-${n}` })),
  );
  for (const store of stores) closers.push(() => store.close());
  await stores[0].accounts.create({ id: 'acc_1', name: 'one', balance: 0, createdAt: AT, updatedAt: AT });
  await stores[0].accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: balance, createdAt: AT });
  return stores;
}

test('200 parallel creates over 3 stores against a balance for 50 create exactly 50', async (t) => {
  const estimate = 20_000;
  const stores = await threeProcesses(t, 50 * estimate);
  const results = await Promise.allSettled(
    Array.from({ length: 200 }, (_, n) => stores[n % 3].tasks.create(task(n, estimate), {})),
  );
  assert.deepEqual(outcomeCodes(results), { created: 50, INSUFFICIENT_BALANCE: 150 });
  for (const store of stores)
    assert.equal(await store.tasks.reserved('acc_1'), 50 * estimate, 'every process sees the same reserve');
  assert.equal(await stores[1].tasks.countPending(), 50);
  const report = await checkLedger(stores[2]);
  assert.deepEqual(report.problems, []);
});

test("200 parallel creates over 3 stores against a key's limit for 50 create exactly 50", async (t) => {
  const estimate = 10_000;
  const stores = await threeProcesses(t, 1000 * estimate);
  await stores[0].apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_1',
      hash: 'h',
      preview: 'mak_x',
      scopes: [],
      spendingLimit: 50 * estimate,
      spendingLimitPeriod: 'day',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  const limits = { spendingLimit: { limit: 50 * estimate, period: 'day' as const } };
  const results = await Promise.allSettled(
    Array.from({ length: 200 }, (_, n) => stores[n % 3].tasks.create(task(n, estimate, 'key_1'), limits)),
  );
  assert.deepEqual(outcomeCodes(results), { created: 50, SPENDING_LIMIT_EXCEEDED: 150 });
  assert.equal(await stores[2].tasks.keySpend('key_1', 'day', Date.parse(AT)), 50 * estimate);
  assert.deepEqual((await checkLedger(stores[0])).problems, []);
});

test('parallel settles and item records over 3 stores charge each task once', async (t) => {
  const stores = await threeProcesses(t, 1_000_000);
  for (let n = 0; n < 10; n++) await stores[n % 3].tasks.create(task(n, 5000), {});
  // Each item recorded from every process at once, then each task settled from every process at once.
  const records = await Promise.all(
    Array.from({ length: 60 }, (_, n) =>
      stores[n % 3].tasks.recordItem(
        task(n % 10, 0).id,
        0,
        { status: 'success', cost: 2000, result: { by: n % 3 } },
        AT,
      ),
    ),
  );
  assert.equal(records.filter(Boolean).length, 10, 'each item once');
  const settles = await Promise.all(
    Array.from({ length: 60 }, (_, n) =>
      stores[n % 3].tasks.settle({
        id: task(n % 10, 0).id,
        status: 'completed',
        result: null,
        cost: 4000,
        at: AT,
        lastItem: { index: 1, item: { status: 'success', cost: 2000 } },
      }),
    ),
  );
  assert.equal(settles.filter(Boolean).length, 10, 'each task settled once');
  const account = await stores[1].accounts.get('acc_1');
  assert.equal(account?.balance, 1_000_000 - 10 * 4000);
  assert.equal(await stores[2].tasks.reserved('acc_1'), 0);
  assert.deepEqual((await checkLedger(stores[0])).problems, []);
});

test('creates and settles of one key running at once over 3 stores never deadlock', async (t) => {
  const stores = await threeProcesses(t, 10_000_000);
  await stores[0].apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_1',
      hash: 'h',
      preview: 'mak_x',
      scopes: [],
      spendingLimit: 9_000_000,
      spendingLimitPeriod: 'day',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  const limits = { spendingLimit: { limit: 9_000_000, period: 'day' as const } };
  for (let n = 0; n < 60; n++) await stores[n % 3].tasks.create(task(n, 1000, 'key_1'), limits);
  // Settles take the task row, then the account, then the key's spend rows; creates the account, then the spend rows.
  const work = [
    ...Array.from({ length: 60 }, (_, n) =>
      stores[n % 3].tasks.settle({
        id: task(n, 0).id,
        status: 'completed',
        result: null,
        cost: 500,
        at: AT,
        lastItem: { index: 1, item: { status: 'success', cost: 500 } },
      }),
    ),
    ...Array.from({ length: 120 }, (_, n) => stores[(n + 1) % 3].tasks.create(task(100 + n, 1000, 'key_1'), limits)),
  ];
  const results = await Promise.allSettled(work);
  assert.deepEqual(outcomeCodes(results), { created: 180 });
  assert.equal(await stores[0].tasks.keySpend('key_1', 'day', Date.parse(AT)), 60 * 500 + 120 * 1000);
  assert.deepEqual((await checkLedger(stores[1])).problems, []);
});

test('the doctor run again and again while creates and settlements go on over 3 stores reports nothing, and still finds a reserve put wrong', async (t) => {
  const stores = await threeProcesses(t, 100_000_000);
  // Creates reserve and settles charge in their own transactions while the checks read: each check must see one moment.
  let working = true;
  const load = (async () => {
    for (let n = 0; working; n++) {
      const id = task(n, 0).id;
      await stores[n % 3].tasks.create(task(n, 7000 + (n % 5) * 10), {});
      await stores[(n + 2) % 3].tasks.recordItem(id, 0, { status: 'success', cost: 2500 }, AT);
      await stores[(n + 1) % 3].tasks.settle({
        id,
        status: 'completed',
        result: null,
        cost: 5000,
        at: AT,
        lastItem: { index: 1, item: { status: 'success', cost: 2500 } },
      });
    }
  })();
  const load2 = (async () => {
    for (let n = 5000; working; n++) await stores[n % 3].tasks.create(task(n, 3000), {});
  })();
  const reports = [];
  try {
    for (let run = 0; run < 15; run++) reports.push(await checkLedger(stores[run % 3]));
  } finally {
    working = false;
    await Promise.all([load, load2]);
  }
  assert.ok(reports.at(-1)!.checked.tasks > reports[0].checked.tasks, 'the checks ran while tasks were being made');
  assert.deepEqual(
    reports.flatMap((report) => report.problems),
    [],
  );
  // A reserve off by one micro-USD is still found.
  await (stores[0].pool as import('pg').Pool).query("UPDATE accounts SET reserved = reserved + 1 WHERE id = 'acc_1'");
  assert.match(
    (await checkLedger(stores[1])).problems.join('\n'),
    /account one: reserved .* but its pending tasks hold/,
  );
});
