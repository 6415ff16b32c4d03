import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import { isAppError } from '../../../../src/domain/errors.js';
import { PERIODS, periodKey } from '../../../../src/domain/periods.js';
import { checkLedger } from '../../../../src/services/doctor.js';
import { PgStore } from '../../../../src/store/postgres/postgres-store.js';
import type { ItemRecord, TaskRecord } from '../../../../src/store/records/tasks.js';
import { outcomeCodes } from '../../../helpers/counts.js';
import { migratedSchema } from '../store-backends.js';

/**
 * Group commit on PostgreSQL: creates, items recorded and settlements that arrive together share
 * one transaction (each row's xmin names the transaction that wrote it last), and money stays
 * exact when a batch's sum does not fit.
 */
const AT = '2026-11-22T08:00:00.000Z';
let next = 0;
const task = (
  accountId: string,
  estimate: number,
  options: { apiKeyId?: string; createdAt?: string; items?: number; id?: string } = {},
): TaskRecord => ({
  id: options.id ?? `tsk_${String(next++).padStart(5, '0')}`,
  type: 'image.generate',
  status: 'pending',
  accountId,
  apiKeyId: options.apiKeyId ?? null,
  request: { prompt: 'p' },
  items: Array.from({ length: options.items ?? 1 }, (): ItemRecord => ({ status: 'pending' })),
  estimate,
  cost: 0,
  result: null,
  createdAt: options.createdAt ?? AT,
  updatedAt: options.createdAt ?? AT,
});

async function open(t: TestContext, stores = 1): Promise<{ url: string; stores: PgStore[] }> {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const opened = await Promise.all(
    Array.from({ length: stores }, (_, n) => PgStore.open({ url, poolSize: 4, applicationName: `group-commit-${n}` })),
  );
  for (const store of opened) closers.push(() => store.close());
  return { url, stores: opened };
}

async function account(store: PgStore, id: string, balance: number): Promise<void> {
  await store.accounts.create({ id, name: id, balance: 0, createdAt: AT, updatedAt: AT });
  if (balance > 0) await store.accounts.credit({ id: `crd_${id}`, accountId: id, amount: balance, createdAt: AT });
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** How many transactions wrote the rows of these tasks last. */
const transactions = async (url: string, ids: readonly string[]) =>
  Number(
    (
      await sql<{ n: string }>(url, 'SELECT count(DISTINCT xmin::text) AS n FROM tasks WHERE id = ANY($1::text[])', [
        ids,
      ])
    )[0].n,
  );

test('creates arriving together are committed in one transaction, in the order they came', async (t) => {
  const { url, stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 1_000_000);
  const tasks = Array.from({ length: 40 }, () => task('acc_1', 1000));
  const created = await Promise.all(tasks.map((one) => store.tasks.create(one, {})));
  assert.deepEqual(
    created.map((one) => one.id),
    tasks.map((one) => one.id),
  );
  assert.equal(
    await transactions(
      url,
      tasks.map((one) => one.id),
    ),
    1,
    'one transaction for the 40',
  );
  assert.deepEqual(
    (await store.tasks.listPending()).map((one) => one.id),
    tasks.map((one) => one.id),
    'listed in the order they were created',
  );
  assert.equal(await store.tasks.reserved('acc_1'), 40 * 1000);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('an account whose batch does not fit gets exactly what fits, one at a time in order; the other accounts of the batch are created together', async (t) => {
  const { url, stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_short', 3 * 1000);
  await account(store, 'acc_rich', 1_000_000);
  const short = Array.from({ length: 10 }, () => task('acc_short', 1000));
  const rich = Array.from({ length: 10 }, () => task('acc_rich', 1000));
  const results = await Promise.allSettled(
    short.flatMap((one, i) => [store.tasks.create(one, {}), store.tasks.create(rich[i], {})]),
  );
  assert.deepEqual(outcomeCodes(results), { created: 13, INSUFFICIENT_BALANCE: 7 });
  const shortResults = results.filter((_, i) => i % 2 === 0);
  assert.deepEqual(
    shortResults.map((r) => r.status),
    [...Array(3).fill('fulfilled'), ...Array(7).fill('rejected')],
    'the first three that came',
  );
  assert.match(
    String((shortResults[3] as PromiseRejectedResult).reason.message),
    /the estimate is 0.001 USD and the available balance is 0 USD/,
  );
  assert.equal(
    await transactions(
      url,
      rich.map((one) => one.id),
    ),
    1,
    "the other account's creates went in the batch's one transaction",
  );
  assert.equal(await store.tasks.reserved('acc_short'), 3000);
  assert.equal(await store.tasks.reserved('acc_rich'), 10_000);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('200 parallel creates in one process against a balance for 50, and against a key limit for 50, create exactly 50', async (t) => {
  const { stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_b', 50 * 700);
  const byBalance = await Promise.allSettled(
    Array.from({ length: 200 }, () => store.tasks.create(task('acc_b', 700), {})),
  );
  assert.deepEqual(outcomeCodes(byBalance), { created: 50, INSUFFICIENT_BALANCE: 150 });
  assert.equal(await store.tasks.reserved('acc_b'), 50 * 700);

  await account(store, 'acc_k', 1_000_000);
  await store.apiKeys.create(
    {
      id: 'key_k',
      accountId: 'acc_k',
      hash: 'hk',
      preview: 'mak_k',
      scopes: [],
      spendingLimit: 50 * 700,
      spendingLimitPeriod: 'week',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  const limits = { spendingLimit: { limit: 50 * 700, period: 'week' as const } };
  const byLimit = await Promise.allSettled(
    Array.from({ length: 200 }, () => store.tasks.create(task('acc_k', 700, { apiKeyId: 'key_k' }), limits)),
  );
  assert.deepEqual(outcomeCodes(byLimit), { created: 50, SPENDING_LIMIT_EXCEEDED: 150 });
  assert.equal(await store.tasks.keySpend('key_k', 'week', Date.parse(AT)), 50 * 700);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('in a batch, a short balance is reported before a used-up spending limit, and a key within its limit is not held back by another', async (t) => {
  const { stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 2500);
  const key = (id: string, limit: number) =>
    store.apiKeys.create(
      {
        id,
        accountId: 'acc_1',
        hash: id,
        preview: 'mak_x',
        scopes: [],
        spendingLimit: limit,
        spendingLimitPeriod: 'day',
        createdAt: AT,
      },
      { maxLive: 10 },
    );
  await key('key_used', 500);
  await key('key_free', 100_000);
  const used = { spendingLimit: { limit: 500, period: 'day' as const } };
  const free = { spendingLimit: { limit: 100_000, period: 'day' as const } };
  const results = await Promise.allSettled([
    store.tasks.create(task('acc_1', 1000, { apiKeyId: 'key_used' }), used),
    store.tasks.create(task('acc_1', 1000, { apiKeyId: 'key_free' }), free),
    store.tasks.create(task('acc_1', 1000, { apiKeyId: 'key_free' }), free),
    store.tasks.create(task('acc_1', 3000, { apiKeyId: 'key_used' }), used),
  ]);
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? 'created' : (r.reason as { code: string }).code)),
    ['SPENDING_LIMIT_EXCEEDED', 'created', 'created', 'INSUFFICIENT_BALANCE'],
  );
  assert.equal(await store.tasks.keySpend('key_free', 'day', Date.parse(AT)), 2000);
  assert.equal(await store.tasks.keySpend('key_used', 'day', Date.parse(AT)), 0);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('a member the database refuses (a task id taken, an account gone) fails alone; the rest of its batch is created', async (t) => {
  const { stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 1_000_000);
  await store.tasks.create(task('acc_1', 1000, { id: 'tsk_taken' }), {});
  const batch = [
    ...Array.from({ length: 4 }, () => task('acc_1', 1000)),
    task('acc_1', 1000, { id: 'tsk_taken' }),
    task('acc_gone', 1000),
    ...Array.from({ length: 4 }, () => task('acc_1', 1000)),
  ];
  const results = await Promise.allSettled(batch.map((one) => store.tasks.create(one, {})));
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? 'created' : ((r.reason as { code?: string }).code ?? 'error'))),
    ['created', 'created', 'created', 'created', '23505', 'UNAUTHORIZED', 'created', 'created', 'created', 'created'],
  );
  assert.equal(
    await store.tasks.reserved('acc_1'),
    9 * 1000,
    'the first create and the eight others, each reserved once',
  );
  assert.equal(await store.tasks.countPending(), 9);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('a connection lost in the middle of a batch answers every member STORE_UNAVAILABLE, keeps nothing of it, and loses nothing answered before', async (t) => {
  const { url, stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 1_000_000);
  const before = Array.from({ length: 5 }, () => task('acc_1', 1000));
  await Promise.all(before.map((one) => store.tasks.create(one, {})));

  // Another session holds the account row: the batch's transaction waits on it, mid-flight.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  t.after(() => holder.end());
  await holder.query('BEGIN');
  await holder.query(`SELECT 1 FROM accounts WHERE id = 'acc_1' FOR UPDATE`);
  const burst = Array.from({ length: 20 }, () => task('acc_1', 1000));
  const pending = Promise.allSettled(burst.map((one) => store.tasks.create(one, {})));
  let waiting: { pid: number }[] = [];
  while (waiting.length === 0) {
    waiting = await sql<{ pid: number }>(
      url,
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'group-commit-0' AND wait_event_type = 'Lock'`,
    );
  }
  await sql(url, 'SELECT pg_terminate_backend($1)', [waiting[0].pid]);
  const results = await pending;
  for (const result of results) {
    assert.equal(result.status, 'rejected');
    assert.ok(isAppError(result.reason) && result.reason.code === 'STORE_UNAVAILABLE', String(result.reason));
  }
  await holder.query('ROLLBACK');

  assert.deepEqual(
    (await store.tasks.listPending()).map((one) => one.id),
    before.map((one) => one.id),
    'every create answered before is there, none of the lost batch',
  );
  assert.equal(await store.tasks.reserved('acc_1'), 5 * 1000);
  assert.deepEqual((await checkLedger(store)).problems, []);
  await store.tasks.create(task('acc_1', 1000), {}); // the next batch runs on a fresh connection
});

test('items recorded together share one transaction; settlements arriving together share one, charge each task once and release the rest', async (t) => {
  const { url, stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 1_000_000);
  await store.apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_1',
      hash: 'h',
      preview: 'mak_x',
      scopes: [],
      spendingLimitPeriod: 'month',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  const tasks = Array.from({ length: 30 }, () => task('acc_1', 5000, { apiKeyId: 'key_1', items: 2 }));
  await Promise.all(tasks.map((one) => store.tasks.create(one, {})));
  const ids = tasks.map((one) => one.id);

  const recorded = await Promise.all(
    ids.map((id) => store.tasks.recordItem(id, 0, { status: 'success', cost: 2000 }, AT)),
  );
  assert.ok(
    recorded.every(
      (one, i) => one?.id === ids[i] && one.items[0].status === 'success' && one.items[1].status === 'pending',
    ),
  );
  assert.equal(await transactions(url, ids), 1);

  // Each task settled twice at once: the second of each waits for the next batch, and finds it settled.
  const settle = (id: string) =>
    store.tasks.settle({
      id,
      status: 'completed',
      result: { ok: true },
      cost: 4000,
      at: AT,
      lastItem: { index: 1, item: { status: 'success', cost: 2000 } },
    });
  const settled = await Promise.all([...ids, ...ids].map(settle));
  assert.equal(settled.filter(Boolean).length, 30, 'each task settled once');
  assert.ok(
    settled
      .slice(0, 30)
      .every(
        (one) =>
          one?.status === 'completed' && one.items.every((item) => item.status === 'success') && one.cost === 4000,
      ),
  );
  assert.equal(await transactions(url, ids), 1);
  assert.equal((await store.accounts.get('acc_1'))?.balance, 1_000_000 - 30 * 4000);
  assert.equal(await store.tasks.reserved('acc_1'), 0);
  assert.equal(await store.tasks.keySpend('key_1', 'month', Date.parse(AT)), 30 * 4000);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test("a settlement moves the key's spend of the UTC day, ISO week and month its create counted in", async (t) => {
  const { stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 1_000_000);
  await store.apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_1',
      hash: 'h',
      preview: 'mak_x',
      scopes: [],
      spendingLimitPeriod: 'month',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  // A Sunday's last moment and the Monday after; New Year's Eve and Day in one ISO week; a leap day.
  const times = [
    '2026-11-22T23:59:59.999Z',
    '2026-11-23T00:00:00.000Z',
    '2026-12-31T23:30:00.000Z',
    '2027-01-01T00:00:00.000Z',
    '2028-02-29T12:00:00.000Z',
  ];
  const tasks = times.map((createdAt) => task('acc_1', 1000, { apiKeyId: 'key_1', createdAt }));
  for (const one of tasks) await store.tasks.create(one, {});
  await Promise.all(
    tasks.map((one) =>
      store.tasks.settle({
        id: one.id,
        status: 'completed',
        result: null,
        cost: 400,
        at: one.createdAt,
        lastItem: { index: 0, item: { status: 'success', cost: 400 } },
      }),
    ),
  );
  const expected = new Map<string, number>();
  for (const createdAt of times)
    for (const period of PERIODS)
      expected.set(
        periodKey(period, Date.parse(createdAt)),
        (expected.get(periodKey(period, Date.parse(createdAt))) ?? 0) + 400,
      );
  for (const createdAt of times) {
    for (const period of PERIODS) {
      assert.equal(
        await store.tasks.keySpend('key_1', period, Date.parse(createdAt)),
        expected.get(periodKey(period, Date.parse(createdAt))),
        `${period} of ${createdAt}`,
      );
    }
  }
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test("a settlement does not wait for its account's row; what it charged and released shows at once, and the account's next create applies it", async (t) => {
  const { url, stores } = await open(t);
  const [store] = stores;
  await account(store, 'acc_1', 10_000);
  await store.apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_1',
      hash: 'h',
      preview: 'mak_x',
      scopes: [],
      spendingLimitPeriod: 'month',
      createdAt: AT,
    },
    { maxLive: 10 },
  );
  const one = task('acc_1', 4000, { apiKeyId: 'key_1' });
  await store.tasks.create(one, {});

  // Another session holds the account row, as a create batch of another process does while it checks.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  t.after(() => holder.end());
  await holder.query('BEGIN');
  await holder.query(`SELECT 1 FROM accounts WHERE id = 'acc_1' FOR UPDATE`);
  const settled = await store.tasks.settle({
    id: one.id,
    status: 'completed',
    result: null,
    cost: 1500,
    at: '2026-11-22T09:00:00.000Z',
    lastItem: { index: 0, item: { status: 'success', cost: 1500 } },
  });
  assert.equal(settled?.status, 'completed', 'settled while the row was held');
  assert.equal((await store.accounts.get('acc_1'))?.balance, 10_000 - 1500);
  assert.equal((await store.accounts.get('acc_1'))?.updatedAt, '2026-11-22T09:00:00.000Z');
  assert.equal(await store.tasks.reserved('acc_1'), 0);
  assert.equal(await store.tasks.keySpend('key_1', 'day', Date.parse(AT)), 1500);
  assert.deepEqual((await checkLedger(store)).problems, []);
  const waiting = async () =>
    Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM unapplied_settlements'))[0].n);
  assert.equal(await waiting(), 1, 'its money waits for the row');
  await holder.query('ROLLBACK');

  // The account's next create applies it, and checks against the balance it leaves: 8500 available, so 8500 fits and 1
  // more does not.
  const results = await Promise.allSettled([
    store.tasks.create(task('acc_1', 8500), {}),
    store.tasks.create(task('acc_1', 1), {}),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected'],
  );
  assert.equal(await waiting(), 0);
  const [row] = await sql<{ balance: string; reserved: string }>(
    url,
    `SELECT balance, reserved FROM accounts WHERE id = 'acc_1'`,
  );
  assert.deepEqual([Number(row.balance), Number(row.reserved)], [8500, 8500], 'applied to the row itself');
  assert.deepEqual((await checkLedger(store)).problems, []);
});
