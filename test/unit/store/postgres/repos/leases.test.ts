import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ItemRecord, TaskRecord } from '../../../../../src/store/records/tasks.js';
import type { Store } from '../../../../../src/store/store-contract.js';
import { jsonBackend, migratedSchema, pgBackend } from '../../store-backends.js';

/**
 * Task leases (`Store.shared.leases`: claim / renew / release), on the store several processes
 * share: what lets several workers take pending tasks without two of them running the same one.
 * A store one process owns (the file store) has none: its process queues its own tasks.
 */
const AT = '2026-11-22T08:00:00.000Z';
const task = (n: number, items = 1): TaskRecord => ({
  id: `tsk_${String(n).padStart(4, '0')}`,
  type: 'image.generate',
  status: 'pending',
  accountId: 'acc_1',
  apiKeyId: null,
  request: { prompt: `p${n}` },
  items: Array.from({ length: items }, (): ItemRecord => ({ status: 'pending' })),
  estimate: 1000,
  cost: 0,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});
const ids = (tasks: TaskRecord[]) => tasks.map((t) => t.id);
const leases = (store: Store) => store.shared!.leases;
/** A claim of up to `n` tasks of lane L. */
const want = (n: number) => [{ lane: 'L', limit: n }];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withTasks(store: Store, n: number): Promise<void> {
  await store.accounts.create({ id: 'acc_1', name: 'one', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 1_000_000, createdAt: AT });
  for (let i = 1; i <= n; i++) await store.tasks.create(task(i), { lane: 'L' });
}

test("postgres: claim leases a lane's pending tasks oldest first (one account), up to the limit, never a leased or settled one", async (t) => {
  const store = await pgBackend.open(t);
  await withTasks(store, 5);
  await store.tasks.settle({
    id: 'tsk_0002',
    status: 'failed',
    result: null,
    cost: 0,
    at: AT,
    errors: [{ code: 'TASK_EXPIRED' }],
  });
  const first = await leases(store).claim('w1', want(2), 60_000);
  assert.deepEqual(ids(first), ['tsk_0001', 'tsk_0003']);
  assert.equal(first[0].items.length, 1, 'a claimed task comes whole, items included');
  assert.deepEqual(ids(await leases(store).claim('w2', want(10), 60_000)), ['tsk_0004', 'tsk_0005']);
  assert.deepEqual(await leases(store).claim('w3', want(10), 60_000), [], 'everything pending is leased');
  assert.deepEqual(await leases(store).claim('w3', want(0), 60_000), []);
});

test('postgres: two workers claiming at once never get the same task', async (t) => {
  const store = await pgBackend.open(t);
  await withTasks(store, 30);
  const rounds = await Promise.all(Array.from({ length: 6 }, (_, w) => leases(store).claim(`w${w}`, want(7), 60_000)));
  const all = rounds.flatMap(ids);
  assert.equal(new Set(all).size, all.length, `no task twice: ${all.join(' ')}`);
  assert.equal(all.length, 30, 'every task was taken by someone');
});

test('postgres: an expired lease is claimable again; a renewed one is not; a released one is at once', async (t) => {
  const store = await pgBackend.open(t);
  await withTasks(store, 3);
  assert.deepEqual(ids(await leases(store).claim('w1', want(1), 150)), ['tsk_0001']);
  assert.deepEqual(ids(await leases(store).claim('w2', want(1), 150)), ['tsk_0002']);
  assert.deepEqual(ids(await leases(store).claim('w3', want(1), 60_000)), ['tsk_0003']);
  await sleep(60);
  assert.deepEqual(
    await leases(store).renew('w1', ['tsk_0001', 'tsk_0002', 'tsk_none'], 60_000),
    ['tsk_0001'],
    'only leases the worker holds are renewed',
  );
  await sleep(200);
  // w2's lease ran out: w4 takes its task; w1 renewed in time and keeps its own.
  assert.deepEqual(ids(await leases(store).claim('w4', want(10), 60_000)), ['tsk_0002']);
  assert.deepEqual(await leases(store).renew('w2', ['tsk_0002'], 60_000), [], 'a lost lease is not renewed');
  await leases(store).release('w9', 'tsk_0003');
  assert.deepEqual(
    await leases(store).claim('w5', want(10), 60_000),
    [],
    "releasing someone else's lease does nothing",
  );
  await leases(store).release('w3', 'tsk_0003');
  assert.deepEqual(ids(await leases(store).claim('w5', want(10), 60_000)), ['tsk_0003']);
  // A settled task is no longer renewed.
  await store.tasks.settle({
    id: 'tsk_0001',
    status: 'failed',
    result: null,
    cost: 0,
    at: AT,
    errors: [{ code: 'TASK_EXPIRED' }],
  });
  assert.deepEqual(await leases(store).renew('w1', ['tsk_0001'], 60_000), []);
});

test('postgres: claims from separate pools (processes) at once never share a task', async (t) => {
  const { PgStore } = await import('../../../../../src/store/postgres/postgres-store.js');
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const stores = await Promise.all(
    [1, 2, 3].map((n) => PgStore.open({ url, poolSize: 4, applicationName: `lease-${n}` })),
  );
  for (const store of stores) closers.push(() => store.close());
  await withTasks(stores[0], 60);
  const rounds = await Promise.all(
    Array.from({ length: 12 }, (_, n) => leases(stores[n % 3]).claim(`w${n}`, want(5), 60_000)),
  );
  const all = rounds.flatMap(ids);
  assert.equal(new Set(all).size, all.length);
  assert.equal(all.length, 60);
});

test('file: a store one process owns offers no shared queue, and its tasks carry no lease methods', async (t) => {
  const store = await jsonBackend.open(t);
  assert.equal(store.shared, undefined, 'its process queues its own tasks: no signals, no leases');
  for (const method of ['claim', 'renewLeases', 'release'])
    assert.equal(method in store.tasks, false, `no tasks.${method}`);
});

test('postgres: a task created with a lease is held by its creator from the start: no one claims it until the lease lapses, and the creator renews it', async (t) => {
  const store = await pgBackend.open(t);
  await withTasks(store, 1);
  // Creates arriving together (one batch): one leased to w1 for a short while, one to w1 for long, one with no lease.
  await Promise.all([
    store.tasks.create(task(2), { lease: { owner: 'w1', ms: 150 }, lane: 'L' }),
    store.tasks.create(task(3), { lease: { owner: 'w1', ms: 60_000 }, lane: 'L' }),
    store.tasks.create(task(4), { lane: 'L' }),
  ]);
  assert.deepEqual(
    ids(await leases(store).claim('w2', want(10), 60_000)),
    ['tsk_0001', 'tsk_0004'],
    'the unleased ones only',
  );
  assert.deepEqual(
    await leases(store).renew('w1', ['tsk_0002', 'tsk_0003'], 150),
    ['tsk_0002', 'tsk_0003'],
    'the creator holds both leases',
  );
  await sleep(250);
  assert.deepEqual(
    ids(await leases(store).claim('w3', want(10), 60_000)),
    ['tsk_0002', 'tsk_0003'],
    'lapsed (renewed for 150 ms only): claimable by others',
  );
});

/** A pending task of `account` (created after the accounts below), with a priority and the key it was made with. */
const taskOf = (id: string, account: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  ...task(0),
  id,
  accountId: account,
  ...extra,
});

async function withAccounts(store: Store, names: string[]): Promise<void> {
  for (const name of names) {
    await store.accounts.create({ id: name, name, balance: 0, createdAt: AT, updatedAt: AT });
    await store.accounts.credit({ id: `crd_${name}`, accountId: name, amount: 10_000_000, createdAt: AT });
  }
}

test("postgres: claims take a lane fairly: one account's burst does not hold up another; weights share 3:1; a higher priority first", async (t) => {
  const store = await pgBackend.open(t);
  await withAccounts(store, ['acc_a', 'acc_b', 'acc_h', 'acc_l']);
  for (let i = 0; i < 20; i++)
    await store.tasks.create(taskOf(`tsk_a${String(i).padStart(2, '0')}`, 'acc_a'), { lane: 'L' });
  assert.deepEqual(ids(await leases(store).claim('w1', want(4), 60_000)), ['tsk_a00', 'tsk_a01', 'tsk_a02', 'tsk_a03']);
  await store.tasks.create(taskOf('tsk_b00', 'acc_b'), { lane: 'L' });
  const next = ids(await leases(store).claim('w1', want(2), 60_000));
  assert.ok(next.includes('tsk_b00'), `B's task is among the next two claimed, not behind A's 16: ${next}`);
  await store.tasks.create(taskOf('tsk_p00', 'acc_b', { priority: 5 }), { lane: 'L' });
  assert.deepEqual(
    ids(await leases(store).claim('w1', want(1), 60_000)),
    ['tsk_p00'],
    'priority 5 goes before the backlog',
  );
  assert.deepEqual(
    await leases(store).claim('w1', [{ lane: 'other', limit: 5 }], 60_000),
    [],
    'another lane has none of them',
  );

  await store.accounts.update('acc_h', { weight: 3 }, AT);
  for (let i = 0; i < 40; i++) {
    await store.tasks.create(taskOf(`tsk_h${String(i).padStart(2, '0')}`, 'acc_h'), { lane: 'M' });
    await store.tasks.create(taskOf(`tsk_l${String(i).padStart(2, '0')}`, 'acc_l'), { lane: 'M' });
  }
  const twenty = ids(await leases(store).claim('w1', [{ lane: 'M', limit: 20 }], 60_000));
  const heavy = twenty.filter((id) => id.startsWith('tsk_h')).length;
  assert.equal(heavy, 15, `weight 3 takes 15 of 20: ${twenty}`);
  assert.deepEqual((await leases(store).pendingLanes()).lanes.sort(), ['L', 'M']);
});

test('postgres: tasks of a key whose maxConcurrent is leased already are passed over; tasks created before lanes were kept are claimed oldest first', async (t) => {
  const store = await pgBackend.open(t);
  await withAccounts(store, ['acc_a', 'acc_b']);
  await store.apiKeys.create(
    {
      id: 'key_cap',
      accountId: 'acc_a',
      hash: 'h1',
      preview: 'x',
      scopes: [],
      spendingLimitPeriod: 'month',
      createdAt: AT,
      maxConcurrent: 1,
    },
    { maxLive: 10 },
  );
  for (let i = 0; i < 3; i++)
    await store.tasks.create(taskOf(`tsk_k${i}`, 'acc_a', { apiKeyId: 'key_cap' }), { lane: 'L' });
  await store.tasks.create(taskOf('tsk_b0', 'acc_b'), { lane: 'L' });
  // Nothing of the key is leased yet: a claim may take several of its tasks (their items are held to the bound by key
  // slots).
  const first = ids(await leases(store).claim('w1', want(4), 60_000));
  assert.ok(
    first.includes('tsk_b0') && first.includes('tsk_k0'),
    `the other account's task and the capped key's first: ${first}`,
  );
  for (const id of first) if (id !== 'tsk_k0' && id !== 'tsk_b0') await leases(store).release('w1', id);
  assert.deepEqual(
    ids(await leases(store).claim('w2', want(4), 60_000)),
    [],
    "the key's bound is taken by a leased task: its other tasks are passed over",
  );
  await leases(store).release('w1', 'tsk_k0');
  assert.deepEqual(ids(await leases(store).claim('w2', want(1), 60_000)), ['tsk_k0']);

  await store.tasks.create(taskOf('tsk_old', 'acc_b'), {});
  assert.equal((await leases(store).pendingLanes()).legacy, true);
  assert.deepEqual(ids(await leases(store).claim('w3', [{ lane: null, limit: 5 }], 60_000)), ['tsk_old']);
});

test("postgres: a key's slots are shared by the processes: each slot is held by one, given back when released or when its connection goes", async (t) => {
  const { PgStore } = await import('../../../../../src/store/postgres/postgres-store.js');
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const [one, two] = await Promise.all(
    [1, 2].map((n) => PgStore.open({ url, poolSize: 2, applicationName: `slots-${n}` })),
  );
  closers.push(() => two.close());
  // Asked for at once by one process: a session's locks are reentrant, so the second must not get the first's slot
  // again.
  const [a, a2] = await Promise.all([
    one.shared!.keySlots.acquire('key_z', 2),
    one.shared!.keySlots.acquire('key_z', 2),
  ]);
  assert.ok(a && a2, 'one process takes both slots when asking twice at once');
  assert.equal(await two.shared!.keySlots.acquire('key_z', 2), null, 'and the other gets none');
  const b = await two.shared!.keySlots.acquire('key_x', 2);
  const b2 = await one.shared!.keySlots.acquire('key_x', 2);
  assert.ok(b && b2, 'two slots, one each');
  assert.equal(await one.shared!.keySlots.acquire('key_x', 2), null, 'both slots taken');
  assert.equal(await two.shared!.keySlots.acquire('key_x', 2), null);
  assert.ok(await two.shared!.keySlots.acquire('key_y', 1), 'another key has its own');
  await b();
  assert.ok(await one.shared!.keySlots.acquire('key_x', 2), 'a slot given back is taken by the other process');
  assert.equal(await two.shared!.keySlots.acquire('key_x', 2), null);
  await one.close();
  assert.ok(
    await two.shared!.keySlots.acquire('key_x', 2),
    'a process that goes gives its slots back with its connection',
  );
});
