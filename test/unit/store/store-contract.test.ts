import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { ApiKeyRecord } from '../../../src/store/records/api-keys.js';
import type { BillingAlertRecord } from '../../../src/store/records/billing-alerts.js';
import type { ConsoleSessionRecord } from '../../../src/store/records/console-sessions.js';
import type { DestinationRecord } from '../../../src/store/records/destinations.js';
import type { ItemRecord, TaskRecord } from '../../../src/store/records/tasks.js';
import type { DeliveryRecord, EventRecord, WebhookRecord } from '../../../src/store/records/webhooks.js';
import type { Store } from '../../../src/store/store-contract.js';
import { BACKENDS } from './store-backends.js';

/**
 * The Store contract, run against every backend: each scenario runs on the journaled file store
 * and on PostgreSQL, asserts what the contract says, and notes its answers; both backends must
 * note the very same answers (deep-equal, undefined fields included).
 */
type Note = (label: string, value: unknown) => void;

function contract(name: string, scenario: (store: Store, note: Note, t: TestContext) => Promise<void>): void {
  test(name, async (t) => {
    const transcripts: { backend: string; notes: [string, unknown][] }[] = [];
    for (const backend of BACKENDS) {
      await t.test(backend.name, async (st) => {
        const store = await backend.open(st);
        const notes: [string, unknown][] = [];
        await scenario(store, (label, value) => notes.push([label, structuredClone(value)]), st);
        transcripts.push({ backend: backend.name, notes });
      });
    }
    assert.equal(transcripts.length, BACKENDS.length);
    for (const other of transcripts.slice(1))
      assert.deepStrictEqual(
        other.notes,
        transcripts[0].notes,
        `${other.backend} answers as ${transcripts[0].backend} does`,
      );
  });
}

const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const iso = (millis: number) => new Date(millis).toISOString();
const AT = iso(T0);
const account = (id: string, name = id) => ({ id, name, balance: 0, createdAt: AT, updatedAt: AT });
const key = (id: string, accountId: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id,
  accountId,
  hash: `hash_${id}`,
  preview: 'mak_abcd',
  scopes: ['tasks:read', 'image:generate'],
  spendingLimitPeriod: 'month',
  createdAt: AT,
  ...extra,
});
const pendingItems = (n: number): ItemRecord[] => Array.from({ length: n }, () => ({ status: 'pending' }));

interface TaskOptions {
  estimate?: number;
  items?: number;
  apiKeyId?: string | null;
  createdAt?: string;
  type?: string;
  request?: unknown;
}
const task = (id: string, accountId: string, o: TaskOptions = {}): TaskRecord => ({
  id,
  type: o.type ?? 'image.generate',
  status: 'pending',
  accountId,
  apiKeyId: o.apiKeyId ?? null,
  request: o.request ?? { prompt: 'a red fox', n: o.items ?? 1 },
  items: pendingItems(o.items ?? 1),
  estimate: o.estimate ?? 1000,
  cost: 0,
  result: null,
  createdAt: o.createdAt ?? AT,
  updatedAt: o.createdAt ?? AT,
});
/** Task ids sort as they are made: `tsk_0001` < `tsk_0002`. */
const tid = (n: number) => `tsk_${String(n).padStart(4, '0')}`;

async function funded(store: Store, id: string, amount: number): Promise<void> {
  await store.accounts.create(account(id));
  if (amount > 0) await store.accounts.credit({ id: `crd_${id}`, accountId: id, amount, note: 'seed', createdAt: AT });
}

contract('accounts: create, names, credits and listing order', async (store, note) => {
  note('created', await store.accounts.create(account('acc_b', 'bea')));
  await store.accounts.create(account('acc_a', 'ann'));
  await store.accounts.create(account('acc_c', 'cid'));
  await assert.rejects(store.accounts.create(account('acc_d', 'ann')), { code: 'VALIDATION_ERROR' });
  assert.equal(await store.accounts.get('acc_d'), undefined, 'a refused create writes nothing');

  const later = iso(T0 + 60_000);
  const credited = await store.accounts.credit({
    id: 'crd_1',
    accountId: 'acc_a',
    amount: 5_000_000,
    note: 'welcome',
    createdAt: later,
  });
  assert.equal(credited.balance, 5_000_000);
  assert.equal(credited.updatedAt, later);
  await store.accounts.credit({ id: 'crd_0', accountId: 'acc_a', amount: 250, createdAt: later });
  await assert.rejects(store.accounts.credit({ id: 'crd_x', accountId: 'acc_none', amount: 1, createdAt: later }), {
    code: 'VALIDATION_ERROR',
  });

  note('get', await store.accounts.get('acc_a'));
  note('byName', await store.accounts.getByName('ann'));
  assert.equal(await store.accounts.getByName('nobody'), undefined);
  assert.equal(await store.accounts.get('acc_none'), undefined);
  const list = await store.accounts.list();
  assert.deepEqual(
    list.map((a) => a.id),
    ['acc_b', 'acc_a', 'acc_c'],
    'accounts list in the order they were created',
  );
  note('list', list);
  const credits = await store.accounts.credits('acc_a');
  assert.deepEqual(
    credits.map((c) => c.id),
    ['crd_1', 'crd_0'],
    'credits oldest first',
  );
  note('credits', credits);
  assert.deepEqual(await store.accounts.credits('acc_none'), []);
});

contract('api keys: live limit, revoke, lookups by hash', async (store, note) => {
  await store.accounts.create(account('acc_1'));
  await store.accounts.create(account('acc_2'));
  note(
    'created',
    await store.apiKeys.create(
      key('key_b', 'acc_1', { name: 'ci', spendingLimit: 2_000_000, spendingLimitPeriod: 'week' }),
      { maxLive: 2 },
    ),
  );
  await store.apiKeys.create(key('key_a', 'acc_1'), { maxLive: 2 });
  await assert.rejects(store.apiKeys.create(key('key_c', 'acc_1'), { maxLive: 2 }), { code: 'API_KEY_LIMIT_REACHED' });
  await assert.rejects(store.apiKeys.create(key('key_z', 'acc_none'), { maxLive: 2 }), { code: 'VALIDATION_ERROR' });
  await store.apiKeys.create(key('key_o', 'acc_2'), { maxLive: 2 });

  const revoked = await store.apiKeys.revoke('key_b', iso(T0 + 1000));
  assert.equal(revoked?.revokedAt, iso(T0 + 1000));
  note('revoked', revoked);
  assert.equal(await store.apiKeys.revoke('key_b', iso(T0 + 2000)), undefined, 'already revoked');
  assert.equal(await store.apiKeys.revoke('key_none', AT), undefined);
  assert.equal(await store.apiKeys.getLiveByHash('hash_key_b'), undefined, 'a revoked key is never accepted');
  note('revoked kept', await store.apiKeys.get('key_b'));
  note('live by hash', await store.apiKeys.getLiveByHash('hash_key_a'));
  await store.apiKeys.create(key('key_c', 'acc_1'), { maxLive: 2 });
  const live = await store.apiKeys.listLive('acc_1');
  assert.deepEqual(
    live.map((k) => k.id),
    ['key_a', 'key_c'],
  );
  note('live', live);
  assert.deepEqual(await store.apiKeys.listLive('acc_none'), []);
  assert.equal(await store.apiKeys.get('key_none'), undefined);
});

contract('tasks: items, prepared, settle charges once and releases the reserve', async (store, note) => {
  await funded(store, 'acc_1', 10_000);
  await store.apiKeys.create(key('key_1', 'acc_1', { spendingLimit: 9_000 }), { maxLive: 5 });
  const created = await store.tasks.create(task(tid(1), 'acc_1', { estimate: 3000, items: 3, apiKeyId: 'key_1' }), {
    spendingLimit: { limit: 9_000, period: 'month' },
  });
  note('created', created);
  assert.deepEqual(await store.tasks.get(tid(1)), created, 'a read answers what the create answered');
  assert.equal(await store.tasks.reserved('acc_1'), 3000);
  assert.equal(await store.tasks.keySpend('key_1', 'month', T0), 3000);

  const t1 = iso(T0 + 1000);
  const first = await store.tasks.recordItem(
    tid(1),
    0,
    { status: 'success', cost: 1000, result: { url: 'https://x/1.png', size: [1024, 1024] }, attempts: 1 },
    t1,
  );
  assert.equal(first?.items[0].status, 'success');
  assert.equal(first?.updatedAt, t1);
  note('item 0', first);
  assert.equal(
    await store.tasks.recordItem(tid(1), 0, { status: 'failed', error: { code: 'X' } }, t1),
    undefined,
    'an item is recorded once',
  );
  assert.equal(await store.tasks.recordItem(tid(1), 7, { status: 'success' }, t1), undefined, 'no such item');
  assert.equal(await store.tasks.recordItem('tsk_none', 0, { status: 'success' }, t1), undefined);
  note(
    'item 1',
    await store.tasks.recordItem(
      tid(1),
      1,
      { status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION', message: 'no' }, attempts: 2 },
      t1,
    ),
  );
  note('prepared', await store.tasks.savePrepared(tid(1), { model: 'flux', size: '1024x1024' }, iso(T0 + 1500)));
  assert.equal(await store.tasks.savePrepared('tsk_none', {}, t1), undefined);

  await assert.rejects(
    store.tasks.settle({ id: tid(1), status: 'completed', result: null, cost: 3001, at: t1 }),
    /outside/,
    'a charge above the estimate is refused',
  );
  assert.equal(
    await store.tasks.settle({
      id: tid(1),
      status: 'completed',
      result: null,
      cost: 1000,
      at: t1,
      lastItem: { index: 0, item: { status: 'success' } },
    }),
    undefined,
    'the last item must be pending',
  );

  const at = iso(T0 + 2000);
  const settled = await store.tasks.settle({
    id: tid(1),
    status: 'completed',
    result: { images: 2 },
    cost: 2000,
    at,
    lastItem: { index: 2, item: { status: 'success', cost: 1000 } },
  });
  assert.equal(settled?.status, 'completed');
  assert.equal(settled?.cost, 2000);
  assert.equal(settled?.items[2].status, 'success');
  note('settled', settled);
  assert.deepEqual(await store.tasks.get(tid(1)), settled);
  const after = await store.accounts.get('acc_1');
  assert.equal(after?.balance, 8000, 'charged the cost');
  assert.equal(after?.updatedAt, at);
  assert.equal(await store.tasks.reserved('acc_1'), 0, 'released the reserve');
  assert.equal(await store.tasks.keySpend('key_1', 'month', T0), 2000, 'the key spend is now the charge');

  assert.equal(
    await store.tasks.settle({ id: tid(1), status: 'failed', result: null, cost: 0, at }),
    undefined,
    'settled once',
  );
  assert.equal(
    await store.tasks.recordItem(tid(1), 1, { status: 'success' }, at),
    undefined,
    'no items after settlement',
  );
  assert.equal(await store.tasks.savePrepared(tid(1), {}, at), undefined);
  assert.equal((await store.accounts.get('acc_1'))?.balance, 8000);

  // A failed settlement: errors kept, nothing charged, the account's updatedAt untouched.
  await store.tasks.create(task(tid(2), 'acc_1', { estimate: 500 }), {});
  const failed = await store.tasks.settle({
    id: tid(2),
    status: 'failed',
    result: null,
    errors: [{ code: 'PROVIDER_ERROR', message: 'down' }],
    cost: 0,
    at: iso(T0 + 3000),
  });
  assert.deepEqual(failed?.errors, [{ code: 'PROVIDER_ERROR', message: 'down' }]);
  note('failed', failed);
  note('account', await store.accounts.get('acc_1'));
  assert.equal((await store.accounts.get('acc_1'))?.updatedAt, at);
  assert.equal(await store.tasks.get('tsk_none'), undefined);
});

contract(
  'tasks: what prepare worked out rides on the first item or settlement written, and is kept once',
  async (store, note) => {
    await funded(store, 'acc_1', 10_000_000);
    const at = (ms: number) => iso(T0 + ms);
    await store.tasks.create(task(tid(1), 'acc_1', { items: 2, estimate: 2000 }), {});
    const first = await store.tasks.recordItem(tid(1), 0, { status: 'success', cost: 1000 }, at(10), {
      model: 'm1',
      width: 64,
    });
    assert.deepEqual(first?.prepared, { model: 'm1', width: 64 }, 'the first item write keeps the plan');
    note('after first item', first);
    // A later write carrying another plan does not replace the one kept.
    const settled = await store.tasks.settle({
      id: tid(1),
      status: 'completed',
      result: null,
      cost: 2000,
      at: at(20),
      lastItem: { index: 1, item: { status: 'success', cost: 1000 } },
      prepared: { model: 'm2' },
    });
    assert.deepEqual(settled?.prepared, { model: 'm1', width: 64 });
    assert.deepEqual((await store.tasks.get(tid(1)))?.prepared, { model: 'm1', width: 64 });
    note('settled', settled);

    await store.tasks.create(task(tid(2), 'acc_1', { estimate: 1000 }), {});
    const alone = await store.tasks.settle({
      id: tid(2),
      status: 'completed',
      result: null,
      cost: 1000,
      at: at(30),
      lastItem: { index: 0, item: { status: 'success', cost: 1000 } },
      prepared: { model: 'm3' },
    });
    assert.deepEqual(alone?.prepared, { model: 'm3' }, 'a settlement that is the first write keeps the plan');
    assert.deepEqual((await store.tasks.get(tid(2)))?.prepared, { model: 'm3' });
    assert.equal(
      (await store.billing.usage('acc_1', AT, at(60_000))).find((entry) => entry.taskId === tid(2))?.model,
      'm3',
      'usage names the model the plan chose',
    );

    await store.tasks.create(task(tid(3), 'acc_1', { estimate: 1000 }), {});
    const refused = await store.tasks.recordItem(tid(3), 5, { status: 'success' }, at(40), { model: 'm4' });
    assert.equal(refused, undefined);
    assert.equal((await store.tasks.get(tid(3)))?.prepared, undefined, 'a refused write keeps nothing');
    note('refused', await store.tasks.get(tid(3)));
  },
);

contract('tasks: balance, account and spending-limit checks', async (store, note) => {
  await funded(store, 'acc_1', 5000);
  await store.apiKeys.create(key('key_1', 'acc_1'), { maxLive: 5 });
  const limit = { spendingLimit: { limit: 3000, period: 'day' as const } };
  await store.tasks.create(task(tid(1), 'acc_1', { estimate: 2000, apiKeyId: 'key_1' }), limit);
  await assert.rejects(store.tasks.create(task(tid(2), 'acc_1', { estimate: 1001, apiKeyId: 'key_1' }), limit), {
    code: 'SPENDING_LIMIT_EXCEEDED',
  });
  await store.tasks.create(task(tid(3), 'acc_1', { estimate: 1000, apiKeyId: 'key_1' }), limit);
  // Yesterday's spend does not count today; the month's does.
  const yesterday = iso(T0 - 86_400_000);
  await store.tasks.create(task(tid(0), 'acc_1', { estimate: 1000, apiKeyId: 'key_1', createdAt: yesterday }), limit);
  assert.equal(await store.tasks.keySpend('key_1', 'day', T0), 3000);
  assert.equal(await store.tasks.keySpend('key_1', 'day', T0 - 86_400_000), 1000);
  assert.equal(await store.tasks.keySpend('key_1', 'month', T0), 4000);
  assert.equal(await store.tasks.keySpend('key_1', 'week', T0), 4000, '2026-11-21 and 22 share an ISO week');
  assert.equal(await store.tasks.keySpend('key_none', 'day', T0), 0);
  await assert.rejects(
    store.tasks.create(task(tid(4), 'acc_1', { estimate: 1001 }), {}),
    { code: 'INSUFFICIENT_BALANCE' },
    'available = 5000 − 4000 reserved',
  );
  await store.tasks.create(task(tid(4), 'acc_1', { estimate: 1000 }), {});
  assert.equal(await store.tasks.reserved('acc_1'), 5000);
  await assert.rejects(store.tasks.create(task(tid(5), 'acc_1', { estimate: 0 + 1 }), {}), {
    code: 'INSUFFICIENT_BALANCE',
  });
  await assert.rejects(store.tasks.create(task(tid(6), 'acc_none', { estimate: 0 }), {}), { code: 'UNAUTHORIZED' });
  assert.equal(await store.tasks.get(tid(2)), undefined, 'a refused create writes nothing');
  // A token's task (no key) ignores the limit; a settlement below the estimate frees spend.
  await store.tasks.settle({ id: tid(1), status: 'completed', result: null, cost: 500, at: AT });
  assert.equal(await store.tasks.keySpend('key_1', 'day', T0), 1500);
  await store.tasks.create(task(tid(7), 'acc_1', { estimate: 1500, apiKeyId: 'key_1' }), limit);
  note('spend', [
    await store.tasks.keySpend('key_1', 'day', T0),
    await store.tasks.keySpend('key_1', 'week', T0),
    await store.tasks.keySpend('key_1', 'month', T0),
  ]);
  note('reserved', await store.tasks.reserved('acc_1'));
  assert.equal(await store.tasks.reserved('acc_none'), 0);
  note('counts', await store.tasks.countsByStatus());
});

contract('tasks: listing pages, filters, metadata, counts', async (store, note) => {
  await funded(store, 'acc_1', 1_000_000);
  await funded(store, 'acc_2', 1_000_000);
  const metas: unknown[] = [
    { env: 'prod', n: 7 },
    { env: 'dev', ok: true },
    { env: 'prod', n: 7.5 },
    null,
    { env: { nested: 'prod' } },
    { env: 'prod', n: '7' },
  ];
  for (let n = 1; n <= 12; n++) {
    const type = n % 3 === 0 ? 'image.rate' : 'image.generate';
    const metadata = metas[n % metas.length];
    const request = metadata === null ? { urls: ['https://x'] } : { prompt: `p${n}`, metadata };
    const apiKeyId = n % 3 === 1 ? 'key_1' : null;
    await store.tasks.create(
      task(tid(n), n === 5 ? 'acc_2' : 'acc_1', { type, request, apiKeyId, createdAt: iso(T0 + n * 60_000) }),
      {},
    );
  }
  for (const n of [2, 4, 9])
    await store.tasks.settle({ id: tid(n), status: n === 4 ? 'failed' : 'completed', result: null, cost: 0, at: AT });

  const ids = (page: { tasks: TaskRecord[]; more: boolean }) => ({ ids: page.tasks.map((t) => t.id), more: page.more });
  const page1 = await store.tasks.list('acc_1', { limit: 4 });
  assert.deepEqual(ids(page1), { ids: [tid(12), tid(11), tid(10), tid(9)], more: true }, 'newest first');
  note('page1', page1);
  const page3 = await store.tasks.list('acc_1', { limit: 4, before: tid(4) });
  assert.deepEqual(ids(page3), { ids: [tid(3), tid(2), tid(1)], more: false });
  assert.deepEqual(
    ids(await store.tasks.list('acc_1', { limit: 3, before: tid(4) })),
    { ids: [tid(3), tid(2), tid(1)], more: false },
    'an exact last page says no more',
  );
  const queries = {
    window: { limit: 20, createdAfter: iso(T0 + 3 * 60_000), createdBefore: iso(T0 + 7 * 60_000) },
    status: { limit: 20, status: 'completed' as const },
    type: { limit: 20, type: 'image.rate' },
    typeStatus: { limit: 20, type: 'image.rate', status: 'pending' as const },
    prod: { limit: 20, metadata: { env: 'prod' } },
    number: { limit: 20, metadata: { n: '7' } },
    fraction: { limit: 20, metadata: { n: '7.5' } },
    boolean: { limit: 20, metadata: { ok: 'true' } },
    both: { limit: 20, metadata: { env: 'prod', n: '7' } },
    none: { limit: 20, metadata: { missing: 'x' } },
    emptyFilter: { limit: 2, metadata: {} },
    cursorAndFilter: { limit: 1, before: tid(12), metadata: { env: 'prod' } },
    unknownType: { limit: 5, type: 'video.generate' },
    zero: { limit: 0 },
    key: { limit: 20, apiKeyId: 'key_1' },
    keyAndStatus: { limit: 20, apiKeyId: 'key_1', status: 'pending' as const },
    noSuchKey: { limit: 20, apiKeyId: 'key_none' },
    newer: { limit: 3, after: tid(3) },
    newerLast: { limit: 3, after: tid(9) },
    newerFiltered: { limit: 2, after: tid(1), type: 'image.rate' },
    between: { limit: 20, after: tid(3), before: tid(8) },
    newerWindow: { limit: 20, after: tid(1), createdBefore: iso(T0 + 7 * 60_000) },
  };
  const expected: Record<string, string[]> = {
    window: [tid(6), tid(4), tid(3)],
    status: [tid(9), tid(2)],
    type: [tid(12), tid(9), tid(6), tid(3)],
    typeStatus: [tid(12), tid(6), tid(3)],
    prod: [tid(12), tid(11), tid(8), tid(6), tid(2)],
    number: [tid(12), tid(11), tid(6)],
    fraction: [tid(8), tid(2)],
    boolean: [tid(7), tid(1)],
    both: [tid(12), tid(11), tid(6)],
    none: [],
    emptyFilter: [tid(12), tid(11)],
    cursorAndFilter: [tid(11)],
    unknownType: [],
    zero: [],
    key: [tid(10), tid(7), tid(4), tid(1)],
    keyAndStatus: [tid(10), tid(7), tid(1)],
    noSuchKey: [],
    newer: [tid(7), tid(6), tid(4)],
    newerLast: [tid(12), tid(11), tid(10)],
    newerFiltered: [tid(6), tid(3)],
    between: [tid(7), tid(6), tid(4)],
    newerWindow: [tid(6), tid(4), tid(3), tid(2)],
  };
  for (const [name, query] of Object.entries(queries)) {
    const page = await store.tasks.list('acc_1', query);
    assert.deepEqual(
      page.tasks.map((t) => t.id),
      expected[name],
      `query ${name}`,
    );
    note(`list ${name}`, ids(page));
  }
  assert.equal((await store.tasks.list('acc_1', queries.newer)).more, true, 'a newer page says newer ones remain');
  assert.equal((await store.tasks.list('acc_1', queries.newerLast)).more, false, 'the newest page says none remain');
  assert.deepEqual((await store.tasks.list('acc_1', { limit: 5, apiKeyId: 'key\u0000' })).tasks, []);
  assert.deepEqual(
    ids(await store.tasks.list('acc_2', { limit: 10 })),
    { ids: [tid(5)], more: false },
    "only the account's own tasks",
  );
  assert.deepEqual(ids(await store.tasks.list('acc_none', { limit: 10 })), { ids: [], more: false });

  const pending = await store.tasks.listPending();
  assert.equal(pending.length, 9);
  note('pending', pending);
  assert.equal(await store.tasks.countPending(), 9);
  assert.deepEqual(await store.tasks.countsByStatus(), { pending: 9, completed: 2, failed: 1 });
  const byTypeStatus = (await store.tasks.countsByTypeStatus()).sort((a, b) =>
    `${a.type} ${a.status}`.localeCompare(`${b.type} ${b.status}`),
  );
  assert.deepEqual(byTypeStatus, [
    { type: 'image.generate', status: 'completed', count: 1 },
    { type: 'image.generate', status: 'failed', count: 1 },
    { type: 'image.generate', status: 'pending', count: 6 },
    { type: 'image.rate', status: 'completed', count: 1 },
    { type: 'image.rate', status: 'pending', count: 3 },
  ]);
  const recent = await store.tasks.recent(3);
  assert.deepEqual(
    recent.map((t) => t.id),
    [tid(12), tid(11), tid(10)],
  );
  assert.deepEqual(await store.tasks.recent(0), []);
  note('recent', recent);
  const all = [...(await store.tasks.all())];
  assert.deepEqual(
    all.map((t) => t.id),
    Array.from({ length: 12 }, (_, i) => tid(i + 1)),
    'every task, in the order made',
  );
  note('all', all);
});

const hook = (id: string, extra: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id,
  accountId: 'acc_1',
  url: `https://hooks.example/${id}`,
  enabled: true,
  events: null,
  apiKeyIds: [],
  sealedSecret: 'c2VhbGVk',
  createdAt: AT,
  updatedAt: AT,
  ...extra,
});

contract('webhooks: settings changes and delivery health apply to the record as stored', async (store, note) => {
  await funded(store, 'acc_1', 100_000);
  await store.webhooks.put(hook('wh_h'));
  const DAY = 86_400_000;
  const health = (ok: boolean, at: number) => ({ ok, at: iso(at), disableAfterMs: DAY });

  assert.equal(
    await store.webhooks.recordHealth('wh_h', health(true, T0)),
    undefined,
    'a healthy webhook stays as it is',
  );
  assert.equal(await store.webhooks.recordHealth('wh_h', health(false, T0 + 1000)), undefined);
  assert.equal(
    (await store.webhooks.get('wh_h'))?.failingSince,
    iso(T0 + 1000),
    'the first failure starts the failing time',
  );

  const rotated = await store.webhooks.update('wh_h', { sealedSecret: 'bmV3', updatedAt: iso(T0 + 2000) });
  assert.equal(rotated?.failingSince, iso(T0 + 1000), 'a settings change keeps the health written before it');
  assert.equal(
    await store.webhooks.recordHealth('wh_h', health(false, T0 + 3000)),
    undefined,
    'failing for seconds of a day: still enabled',
  );
  assert.equal((await store.webhooks.get('wh_h'))?.sealedSecret, 'bmV3', 'a health write keeps the rotated secret');

  const disabled = await store.webhooks.recordHealth('wh_h', health(false, T0 + 1000 + DAY));
  assert.equal(disabled?.enabled, false, 'failing for a day: disabled, and the caller told');
  note('disabled', disabled);
  assert.equal(
    await store.webhooks.recordHealth('wh_h', health(false, T0 + 2 * DAY)),
    undefined,
    'disabled once: a later failure tells nothing new',
  );

  const enabled = await store.webhooks.update('wh_h', {
    enabled: true,
    events: ['webhook.test'],
    updatedAt: iso(T0 + 3 * DAY),
  });
  note('re-enabled', enabled);
  assert.equal(enabled?.failingSince, undefined, 're-enabling clears the health that disabled it');
  assert.equal(enabled?.disabledReason, undefined);
  await store.webhooks.recordHealth('wh_h', health(false, T0 + 3 * DAY));
  assert.equal(await store.webhooks.recordHealth('wh_h', health(true, T0 + 3 * DAY + 1)), undefined);
  assert.equal((await store.webhooks.get('wh_h'))?.failingSince, undefined, 'a success ends the failing time');

  await store.webhooks.delete('wh_h');
  assert.equal(await store.webhooks.recordHealth('wh_h', health(false, T0 + 4 * DAY)), undefined);
  assert.equal(
    await store.webhooks.update('wh_h', { url: 'https://hooks.example/back', updatedAt: iso(T0 + 4 * DAY) }),
    undefined,
  );
  assert.equal(
    await store.webhooks.get('wh_h'),
    undefined,
    'neither a health write nor a change brings a deleted webhook back',
  );
});

contract('webhooks: events, deliveries, attempts, due order, redelivery', async (store, note) => {
  await funded(store, 'acc_1', 100_000);
  note('put', await store.webhooks.put(hook('wh_b', { events: ['task.image.generate.completed'] })));
  await store.webhooks.put(hook('wh_a'));
  await store.webhooks.put(hook('wh_c', { accountId: 'acc_2' }));
  await store.webhooks.put(hook('wh_b', { enabled: false, disabledReason: 'kept failing', failingSince: AT }));
  assert.deepEqual(
    (await store.webhooks.listByAccount('acc_1')).map((w) => w.id),
    ['wh_b', 'wh_a'],
    'a replaced webhook keeps its place',
  );
  note('listAll', await store.webhooks.listAll());
  await store.webhooks.delete('wh_c');
  await store.webhooks.delete('wh_none');
  assert.equal(await store.webhooks.get('wh_c'), undefined);
  note('get', await store.webhooks.get('wh_b'));

  for (const n of [1, 2, 3]) {
    await store.tasks.create(task(tid(n), 'acc_1'), {});
    await store.tasks.settle({ id: tid(n), status: 'completed', result: null, cost: 0, at: AT });
  }
  await store.tasks.create(task(tid(4), 'acc_1'), {});
  const unheard = await store.tasks.settle({
    id: tid(4),
    status: 'failed',
    result: null,
    cost: 0,
    at: AT,
    noEvent: true,
  });
  assert.equal(unheard?.eventId, 'none', 'a settlement nobody is to hear of carries its mark');
  assert.equal((await store.tasks.get(tid(4)))?.eventId, 'none');
  note('settled without audience', unheard);
  assert.deepEqual(
    (await store.webhooks.settledWithoutEvent()).map((t) => t.id),
    [tid(1), tid(2), tid(3)],
  );

  const delivery = (id: string, webhookId: string | null, nextAttemptAt: string | null): DeliveryRecord => ({
    id,
    eventId: 'evt_1',
    accountId: 'acc_1',
    webhookId,
    url: 'https://hooks.example/x',
    status: 'pending',
    attempts: [],
    nextAttemptAt,
    createdAt: AT,
    updatedAt: AT,
  });
  const event = {
    id: 'evt_1',
    type: 'task.image.generate.completed',
    accountId: 'acc_1',
    taskId: tid(1),
    createdAt: AT,
    payload: { type: 'task.image.generate.completed', data: { id: tid(1), é: 'ü' } },
  };
  const t5 = iso(T0 + 5000);
  const t3 = iso(T0 + 3000);
  await store.webhooks.recordEvent(event, [
    delivery('dlv_2', 'wh_b', t5),
    delivery('dlv_1', 'wh_a', t5),
    delivery('dlv_3', null, t3),
  ]);
  await store.webhooks.recordEvent({ ...event, type: 'changed' }, [delivery('dlv_9', 'wh_a', AT)]);
  assert.equal(await store.webhooks.getDelivery('dlv_9'), undefined, 'an event is recorded once');
  note('event', await store.webhooks.getEvent('evt_1'));
  assert.equal(await store.webhooks.getEvent('evt_none'), undefined);
  assert.equal((await store.tasks.get(tid(1)))?.eventId, 'evt_1');
  await store.webhooks.markNoEvent(tid(2));
  await store.webhooks.markNoEvent(tid(1)); // already has its event: unchanged
  await store.webhooks.markNoEvent('tsk_none');
  assert.equal((await store.tasks.get(tid(1)))?.eventId, 'evt_1');
  assert.equal((await store.tasks.get(tid(2)))?.eventId, 'none');
  assert.deepEqual(
    (await store.webhooks.settledWithoutEvent()).map((t) => t.id),
    [tid(3)],
  );

  const due = async (limit: number, skip: string[] = []) =>
    (await store.webhooks.nextDeliveries(limit, new Set(skip))).map((d) => d.id);
  assert.deepEqual(await due(10), ['dlv_3', 'dlv_1', 'dlv_2'], 'by due time, then id');
  assert.deepEqual(await due(2, ['dlv_3']), ['dlv_1', 'dlv_2']);
  assert.deepEqual(await due(0), []);

  const a1 = await store.webhooks.recordAttempt(
    'dlv_3',
    { at: iso(T0 + 3100), status: 500, latencyMs: 12, error: 'HTTP 500' },
    'pending',
    iso(T0 + 9000),
  );
  assert.equal(a1.attempts.length, 1);
  note('attempt pending', a1);
  note(
    'attempt delivered',
    await store.webhooks.recordAttempt('dlv_1', { at: iso(T0 + 5100), status: 200, latencyMs: 30 }, 'delivered', null),
  );
  const failed = await store.webhooks.recordAttempt(
    'dlv_3',
    { at: iso(T0 + 9100), status: null, latencyMs: 10_000, error: 'timeout' },
    'failed',
    null,
  );
  assert.deepEqual(
    failed.attempts.map((a) => a.status),
    [500, null],
  );
  note('attempt failed', failed);
  await assert.rejects(
    store.webhooks.recordAttempt('dlv_none', { at: AT, status: 200, latencyMs: 1 }, 'delivered', null),
  );
  assert.deepEqual(await due(10), ['dlv_2']);
  assert.deepEqual(await store.webhooks.deliveryCounts(), { pending: 1, delivered: 1, failed: 1 });

  const again = await store.webhooks.redeliver('dlv_3', iso(T0 + 20_000));
  assert.equal(again?.status, 'pending');
  assert.equal(again?.attempts.length, 2, 'attempts are kept');
  note('redelivered', again);
  assert.equal(await store.webhooks.redeliver('dlv_none', AT), undefined);
  assert.deepEqual(
    (await store.webhooks.pendingDeliveries()).map((d) => d.id),
    ['dlv_2', 'dlv_3'],
    'a redelivery joins the end of the pending ones',
  );
  assert.deepEqual(await due(10), ['dlv_2', 'dlv_3']);
  note('pending', await store.webhooks.pendingDeliveries());

  await store.webhooks.recordEvent({ ...event, id: 'evt_2', taskId: null }, [
    { ...delivery('dlv_4', 'wh_a', AT), eventId: 'evt_2' },
  ]);
  const ofA = await store.webhooks.deliveriesOf('wh_a', 10);
  assert.deepEqual(
    ofA.map((d) => d.id),
    ['dlv_4', 'dlv_1'],
    'newest first',
  );
  assert.deepEqual(
    (await store.webhooks.deliveriesOf('wh_a', 1)).map((d) => d.id),
    ['dlv_4'],
  );
  assert.deepEqual(await store.webhooks.deliveriesOf('wh_a', 0), []);
  note('deliveriesOf', ofA);
  const ofEvent = await store.webhooks.deliveriesOfEvent('evt_1');
  assert.deepEqual(
    ofEvent.map((d) => d.id),
    ['dlv_1', 'dlv_2', 'dlv_3'],
    "an event's deliveries, custom endpoints' included, in id order",
  );
  assert.deepEqual(
    ofEvent.map((d) => d.attempts.length),
    [1, 0, 2],
    'with their attempts',
  );
  note('deliveriesOfEvent', ofEvent);
  assert.deepEqual(
    (await store.webhooks.deliveriesOfEvent('evt_2')).map((d) => d.id),
    ['dlv_4'],
  );
  assert.deepEqual(await store.webhooks.deliveriesOfEvent('evt_none'), []);
  assert.deepEqual(await store.webhooks.deliveriesOfEvent('evt\u0000'), []);
  // A URL may hold a NUL or a lone surrogate (the API's URL schemas take them): its delivery is stored and found all
  // the same.
  const odd = {
    ...delivery('dlv_5', null, AT),
    eventId: 'evt_3',
    url: 'https://x.example/\u0000\ud800"eventId":"evt_1"',
  };
  await store.webhooks.recordEvent({ ...event, id: 'evt_3', taskId: null }, [odd]);
  const ofOdd = await store.webhooks.deliveriesOfEvent('evt_3');
  assert.deepEqual(
    ofOdd.map((d) => [d.id, d.url]),
    [['dlv_5', odd.url]],
  );
  assert.deepEqual(
    (await store.webhooks.deliveriesOfEvent('evt_1')).map((d) => d.id),
    ['dlv_1', 'dlv_2', 'dlv_3'],
  );
  note('getDelivery', await store.webhooks.getDelivery('dlv_2'));
  note('counts', await store.webhooks.deliveryCounts());
});

contract('destinations: name unique per account, replace, delete', async (store, note) => {
  const dest = (
    id: string,
    accountId: string,
    name: string,
    extra: Partial<DestinationRecord> = {},
  ): DestinationRecord => ({
    id,
    accountId,
    name,
    provider: { id: 's3' },
    config: { bucket: 'b', region: 'eu-west-1', prefix: 'imgs/' },
    sealedSecrets: 'c2VjcmV0',
    createdAt: AT,
    updatedAt: AT,
    ...extra,
  });
  note('put', await store.destinations.put(dest('dst_b', 'acc_1', 'main')));
  await store.destinations.put(
    dest('dst_a', 'acc_1', 'backup', {
      provider: { id: 'local' },
      config: { path: '/tmp/x' },
      sealedSecrets: undefined,
    }),
  );
  await assert.rejects(store.destinations.put(dest('dst_c', 'acc_1', 'main')), { code: 'DESTINATION_NAME_TAKEN' });
  await store.destinations.put(dest('dst_c', 'acc_2', 'main'));
  await store.destinations.put(dest('dst_b', 'acc_1', 'main', { config: { bucket: 'other' }, updatedAt: iso(T0 + 1) }));
  await assert.rejects(
    store.destinations.put(dest('dst_b', 'acc_1', 'backup')),
    { code: 'DESTINATION_NAME_TAKEN' },
    'a rename onto a taken name',
  );
  await store.destinations.put(
    dest('dst_a', 'acc_1', 'archive', { provider: { id: 'local' }, config: { path: '/tmp/x' } }),
  );
  note('byName', await store.destinations.getByName('acc_1', 'archive'));
  assert.equal(await store.destinations.getByName('acc_1', 'backup'), undefined, 'the old name is free');
  const list = await store.destinations.listByAccount('acc_1');
  assert.deepEqual(
    list.map((d) => d.id),
    ['dst_b', 'dst_a'],
  );
  note('list', list);
  await store.destinations.delete('dst_b');
  await store.destinations.delete('dst_none');
  await store.destinations.put(dest('dst_d', 'acc_1', 'main'));
  note('after delete', await store.destinations.listByAccount('acc_1'));
  note('get', await store.destinations.get('dst_c'));
  assert.equal(await store.destinations.get('dst_b'), undefined);
  assert.deepEqual(await store.destinations.listByAccount('acc_none'), []);

  note(
    'replace',
    await store.destinations.replace(
      dest('dst_c', 'acc_2', 'main', { config: { bucket: 'replaced' }, updatedAt: iso(T0 + 2) }),
    ),
  );
  assert.deepEqual((await store.destinations.get('dst_c'))?.config, { bucket: 'replaced' });
  await assert.rejects(
    store.destinations.replace(dest('dst_a', 'acc_1', 'main')),
    { code: 'DESTINATION_NAME_TAKEN' },
    'replace checks the name as put does',
  );
  assert.equal(
    await store.destinations.replace(dest('dst_b', 'acc_1', 'gone')),
    undefined,
    'replacing a deleted destination writes nothing',
  );
  assert.equal(await store.destinations.get('dst_b'), undefined, 'and does not bring it back');
  assert.equal(await store.destinations.getByName('acc_1', 'gone'), undefined);
});

contract('secrets: put, replace, delete', async (store, note) => {
  await store.secrets.put({ id: 'webhook:wh_1', sealed: 'AAAA', createdAt: AT, updatedAt: AT });
  await store.secrets.put({ id: 'destination:dst_1', sealed: 'BBBB', createdAt: AT, updatedAt: AT });
  await store.secrets.put({ id: 'webhook:wh_1', sealed: 'CCCC', createdAt: AT, updatedAt: iso(T0 + 1) });
  const list = await store.secrets.list();
  assert.deepEqual(
    list.map((s) => [s.id, s.sealed]),
    [
      ['webhook:wh_1', 'CCCC'],
      ['destination:dst_1', 'BBBB'],
    ],
  );
  note('list', list);
  note('get', await store.secrets.get('webhook:wh_1'));
  assert.equal(await store.secrets.delete('webhook:wh_1'), true);
  assert.equal(await store.secrets.delete('webhook:wh_1'), false);
  assert.equal(await store.secrets.get('webhook:wh_1'), undefined);
  note('after', await store.secrets.list());
});

contract(
  'text PostgreSQL cannot hold as JSON or text round-trips exactly (NUL, lone surrogates, key order)',
  async (store, note) => {
    await funded(store, 'acc_1', 10_000);
    const odd = 'a\u0000b\ud800c\u2028';
    const request = {
      z: 1,
      prompt: odd,
      a: [odd, { y: null, b: 1e21, c: -0.5 }],
      metadata: { tag: odd, n: 1e21, [odd]: 'k' },
    };
    const created = await store.tasks.create(task(tid(1), 'acc_1', { request }), {});
    const read = await store.tasks.get(tid(1));
    assert.deepEqual(read, created);
    assert.equal(JSON.stringify(read?.request), JSON.stringify(request), 'the same text, key order included');
    note('task', read);
    const filters: Record<string, string>[] = [{ tag: odd }, { n: '1e+21' }, { [odd]: 'k' }];
    for (const metadata of filters) {
      assert.deepEqual(
        (await store.tasks.list('acc_1', { limit: 5, metadata })).tasks.map((t) => t.id),
        [tid(1)],
      );
    }
    assert.deepEqual((await store.tasks.list('acc_1', { limit: 5, type: 'x\u0000' })).tasks, []);
    await store.destinations.put({
      id: 'dst_1',
      accountId: 'acc_1',
      name: odd,
      provider: { id: 'http' },
      config: { url: 'https://x' },
      createdAt: AT,
      updatedAt: AT,
    });
    note('destination', await store.destinations.getByName('acc_1', odd));
    assert.equal(await store.tasks.get('tsk_\u0000'), undefined);
    assert.equal(await store.accounts.get('acc_\u0000'), undefined);
    assert.equal(await store.apiKeys.getLiveByHash('\u0000'), undefined);
    await store.accounts.create(account('acc_2', `n${odd}`));
    note('account', await store.accounts.getByName(`n${odd}`));
  },
);

contract('writes are refused once the store is closed', async (store, note) => {
  assert.equal(store.writeFailure(), null);
  await store.close();
  note('failure', store.writeFailure());
  assert.match(store.writeFailure() ?? '', /closed/);
  await assert.rejects(store.accounts.create(account('acc_1')), /closed/);
});

// Money under concurrency: the checks and the insert are one step, however many run at once.
contract('200 parallel creates against a balance for 50 create exactly 50', async (store, note) => {
  const estimate = 20_000;
  await funded(store, 'acc_1', 50 * estimate);
  const results = await Promise.allSettled(
    Array.from({ length: 200 }, (_, n) => store.tasks.create(task(tid(n), 'acc_1', { estimate }), {})),
  );
  const created = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.filter(
    (r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'INSUFFICIENT_BALANCE',
  ).length;
  assert.equal(created, 50);
  assert.equal(refused, 150);
  assert.equal(await store.tasks.reserved('acc_1'), 50 * estimate);
  assert.equal(await store.tasks.countPending(), 50);
  note('outcome', { created, refused });
});

contract("200 parallel creates against a key's spending limit for 50 create exactly 50", async (store, note) => {
  const estimate = 10_000;
  await funded(store, 'acc_1', 1000 * estimate);
  await store.apiKeys.create(key('key_1', 'acc_1', { spendingLimit: 50 * estimate }), { maxLive: 5 });
  const limits = { spendingLimit: { limit: 50 * estimate, period: 'month' as const } };
  const results = await Promise.allSettled(
    Array.from({ length: 200 }, (_, n) =>
      store.tasks.create(task(tid(n), 'acc_1', { estimate, apiKeyId: 'key_1' }), limits),
    ),
  );
  const created = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.filter(
    (r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'SPENDING_LIMIT_EXCEEDED',
  ).length;
  assert.equal(created, 50);
  assert.equal(refused, 150);
  assert.equal(await store.tasks.keySpend('key_1', 'month', T0), 50 * estimate);
  note('outcome', { created, refused });
});

contract('50 parallel settles of one task charge it once', async (store, note) => {
  await funded(store, 'acc_1', 10_000);
  await store.tasks.create(task(tid(1), 'acc_1', { estimate: 4000, items: 2 }), {});
  const settles = await Promise.all(
    Array.from({ length: 50 }, (_, n) =>
      store.tasks.settle({
        id: tid(1),
        status: 'completed',
        result: { n },
        cost: 3000,
        at: iso(T0 + n),
        lastItem: { index: 1, item: { status: 'success', cost: 3000 } },
      }),
    ),
  );
  assert.equal(settles.filter((s) => s !== undefined).length, 1);
  const account = await store.accounts.get('acc_1');
  assert.equal(account?.balance, 7000);
  assert.equal(await store.tasks.reserved('acc_1'), 0);
  note('balance', account?.balance);
  // Parallel item records of one task: each item once, all kept.
  await store.tasks.create(task(tid(2), 'acc_1', { estimate: 10, items: 20 }), {});
  const recorded = await Promise.all(
    Array.from({ length: 40 }, (_, n) =>
      store.tasks.recordItem(tid(2), n % 20, { status: 'success', cost: 0, result: n }, AT),
    ),
  );
  assert.equal(recorded.filter((r) => r !== undefined).length, 20);
  const items = (await store.tasks.get(tid(2)))?.items ?? [];
  assert.equal(items.filter((item) => item.status === 'success').length, 20);
});

contract('api keys: update, touch, rotate, and expiry in the live count', async (store, note) => {
  await store.accounts.create(account('acc_1'));
  await store.apiKeys.create(key('key_a', 'acc_1', { name: 'ci', spendingLimit: 1000, requestsPerMinute: 10 }), {
    maxLive: 3,
  });
  note(
    'updated',
    await store.apiKeys.update('key_a', {
      name: null,
      requestsPerMinute: 20,
      expiresAt: iso(T0 + 86_400_000),
      spendingLimit: null,
      spendingLimitPeriod: 'day',
    }),
  );
  assert.equal(await store.apiKeys.update('key_none', { name: 'x' }), undefined);

  await store.apiKeys.touch('key_a', iso(T0 + 60_000));
  await store.apiKeys.touch('key_a', iso(T0 + 30_000)); // older than the one kept: ignored
  await store.apiKeys.touch('key_none', iso(T0));
  note('touched', await store.apiKeys.get('key_a'));
  assert.equal((await store.apiKeys.get('key_a'))?.lastUsedAt, iso(T0 + 60_000));

  // An expired key does not count against maxLive when `now` is given.
  await store.apiKeys.create(key('key_x', 'acc_1', { expiresAt: iso(T0 + 1000) }), { maxLive: 3 });
  await store.apiKeys.create(key('key_b', 'acc_1'), { maxLive: 2, now: iso(T0 + 2000) });
  await assert.rejects(store.apiKeys.create(key('key_c', 'acc_1'), { maxLive: 2, now: iso(T0 + 2000) }), {
    code: 'API_KEY_LIMIT_REACHED',
  });
  await assert.rejects(
    store.apiKeys.create(key('key_c', 'acc_1'), { maxLive: 2 }),
    { code: 'API_KEY_LIMIT_REACHED' },
    'without now, expiry is not looked at',
  );

  // A rotation with a grace: the old key still counts, so at the bound it is refused and writes nothing.
  const next = key('key_n', 'acc_1', { rotatedFrom: 'key_a' });
  await assert.rejects(
    store.apiKeys.rotate('key_a', next, { expiresAt: iso(T0 + 62_000) }, { maxLive: 2, now: iso(T0 + 2000) }),
    { code: 'API_KEY_LIMIT_REACHED' },
  );
  assert.equal(await store.apiKeys.get('key_n'), undefined);
  assert.equal((await store.apiKeys.get('key_a'))?.expiresAt, iso(T0 + 86_400_000));
  note(
    'rotated with grace',
    await store.apiKeys.rotate('key_a', next, { expiresAt: iso(T0 + 62_000) }, { maxLive: 3, now: iso(T0 + 2000) }),
  );
  note('old after grace rotation', await store.apiKeys.get('key_a'));
  // Revoking at once frees the old key's place: three live keys before, three after.
  note(
    'rotated now',
    await store.apiKeys.rotate(
      'key_b',
      key('key_m', 'acc_1', { rotatedFrom: 'key_b' }),
      { revokedAt: iso(T0 + 3000) },
      { maxLive: 3, now: iso(T0 + 3000) },
    ),
  );
  assert.equal(await store.apiKeys.getLiveByHash('hash_key_b'), undefined);
  // An expired, revoked or unknown key is not rotated.
  assert.equal(
    await store.apiKeys.rotate(
      'key_x',
      key('key_q', 'acc_1'),
      { revokedAt: iso(T0 + 3000) },
      { maxLive: 9, now: iso(T0 + 3000) },
    ),
    undefined,
  );
  assert.equal(
    await store.apiKeys.rotate(
      'key_b',
      key('key_q', 'acc_1'),
      { revokedAt: iso(T0 + 3000) },
      { maxLive: 9, now: iso(T0 + 3000) },
    ),
    undefined,
  );
  assert.equal(
    await store.apiKeys.rotate('key_none', key('key_q', 'acc_1'), { revokedAt: iso(T0 + 3000) }, { maxLive: 9 }),
    undefined,
  );
  assert.equal(await store.apiKeys.get('key_q'), undefined);
  assert.equal(await store.apiKeys.update('key_b', { name: 'revoked' }), undefined, 'a revoked key is not updated');
  note(
    'live',
    (await store.apiKeys.listLive('acc_1')).map((k) => k.id),
  );
});

contract('request windows: one count per key and window; 100 parallel hits count to 100', async (store, note) => {
  assert.equal(await store.requestWindows.hit('key_a', T0), 1);
  assert.equal(await store.requestWindows.hit('key_a', T0), 2);
  assert.equal(await store.requestWindows.hit('key_b', T0), 1);
  assert.equal(await store.requestWindows.hit('key_a', T0 + 60_000), 1, 'a new window starts from 1');
  const counts = await Promise.all(Array.from({ length: 100 }, () => store.requestWindows.hit('key_c', T0)));
  assert.deepEqual(
    [...counts].sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, n) => n + 1),
  );
  note('counts', counts.length);
});

contract(
  'billing: usage by settlement time, the month budget, and one alert mark per scope, period and threshold',
  async (store, note) => {
    await funded(store, 'acc_1', 10_000_000);
    await funded(store, 'acc_2', 1_000_000);
    const at = (ms: number) => iso(T0 + ms);
    await store.tasks.create(task(tid(1), 'acc_1', { apiKeyId: 'key_a', items: 3, estimate: 3000 }), {});
    await store.tasks.savePrepared(tid(1), { model: 'm1', width: 64 }, at(10));
    await store.tasks.recordItem(tid(1), 0, { status: 'success', cost: 1000 }, at(20));
    await store.tasks.recordItem(tid(1), 1, { status: 'failed', error: { code: 'PROVIDER_ERROR' } }, at(30));
    await store.tasks.settle({
      id: tid(1),
      status: 'completed',
      result: { model: 'm1' },
      cost: 2000,
      at: at(1000),
      lastItem: { index: 2, item: { status: 'success', cost: 1000 } },
    });
    await store.tasks.create(task(tid(2), 'acc_1', { type: 'image.rate', estimate: 200 }), {});
    await store.tasks.settle({
      id: tid(2),
      status: 'failed',
      result: null,
      errors: [{ code: 'INVALID_INPUT' }],
      cost: 0,
      at: at(2000),
    });
    await store.tasks.create(task(tid(3), 'acc_1', { apiKeyId: 'key_b', estimate: 500 }), {});
    await store.tasks.settle({
      id: tid(3),
      status: 'completed',
      result: null,
      cost: 500,
      at: '2026-12-01T00:00:00.000Z',
    });
    await store.tasks.create(task(tid(4), 'acc_1', { estimate: 700 }), {}); // pending: not usage
    await store.tasks.create(task(tid(5), 'acc_2', { estimate: 900 }), {});
    await store.tasks.settle({ id: tid(5), status: 'completed', result: null, cost: 900, at: at(1000) });

    const november = await store.billing.usage('acc_1', AT, '2026-12-01T00:00:00.000Z');
    assert.deepEqual(
      november.map((e) => e.taskId),
      [tid(1), tid(2)],
      'to is exclusive; pending tasks and other accounts are left out',
    );
    assert.deepEqual(november[0], {
      taskId: tid(1),
      settledAt: at(1000),
      apiKeyId: 'key_a',
      type: 'image.generate',
      model: 'm1',
      cost: 2000,
      items: 2,
    });
    note('november', november);
    note(
      'from is inclusive',
      (await store.billing.usage('acc_1', at(2000), '2027-01-01T00:00:00.000Z')).map((e) => e.taskId),
    );
    assert.deepEqual(await store.billing.usage('acc_1', at(2001), '2026-12-01T00:00:00.000Z'), []);
    assert.deepEqual(await store.billing.usage('acc_none', AT, '2027-01-01T00:00:00.000Z'), []);

    assert.deepEqual(await store.billing.monthBudget('acc_1', '2026-11'), {
      charged: 2000,
      balance: 10_000_000 - 2500,
    });
    assert.deepEqual(await store.billing.monthBudget('acc_1', '2026-12'), { charged: 500, balance: 10_000_000 - 2500 });
    assert.deepEqual(await store.billing.monthBudget('acc_2', '2026-11'), { charged: 900, balance: 1_000_000 - 900 });
    assert.equal(await store.billing.monthBudget('acc_none', '2026-11'), undefined);

    const alert = (threshold: number, eventId: string): BillingAlertRecord => ({
      id: `acc_1|2026-11|${threshold}`,
      scope: 'account',
      accountId: 'acc_1',
      period: '2026-11',
      threshold,
      used: 2000,
      limit: 10_000_000,
      eventId,
      createdAt: AT,
    });
    const event = (id: string): EventRecord => ({
      id,
      type: 'billing.threshold_reached',
      accountId: 'acc_1',
      taskId: null,
      createdAt: AT,
      payload: { id, type: 'billing.threshold_reached', data: {} },
    });
    const delivery = (id: string, eventId: string): DeliveryRecord => ({
      id,
      eventId,
      accountId: 'acc_1',
      webhookId: 'wh_1',
      url: 'https://hooks.example/b',
      status: 'pending',
      attempts: [],
      nextAttemptAt: AT,
      createdAt: AT,
      updatedAt: AT,
    });
    assert.equal(
      await store.billing.recordAlert(alert(50, 'evt_1'), event('evt_1'), [delivery('dlv_1', 'evt_1')]),
      true,
    );
    assert.equal(
      await store.billing.recordAlert(alert(50, 'evt_2'), event('evt_2'), [delivery('dlv_2', 'evt_2')]),
      false,
      'the mark exists: nothing written',
    );
    assert.equal(await store.webhooks.getEvent('evt_2'), undefined);
    assert.equal(await store.webhooks.getDelivery('dlv_2'), undefined);
    note('alert', await store.billing.getAlert('acc_1|2026-11|50'));
    note('its event', await store.webhooks.getEvent('evt_1'));
    note('its delivery', await store.webhooks.getDelivery('dlv_1'));
    assert.equal(await store.billing.getAlert('acc_1|2026-11|80'), undefined);
    assert.equal(await store.billing.getAlert('nonsense'), undefined);

    // 20 at once for one mark: one wins, with its event and delivery; the others write nothing.
    const won = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        store.billing.recordAlert(alert(80, `evt_r${n}`), event(`evt_r${n}`), [delivery(`dlv_r${n}`, `evt_r${n}`)]),
      ),
    );
    assert.equal(won.filter(Boolean).length, 1);
    const winner = won.indexOf(true);
    assert.equal((await store.billing.getAlert('acc_1|2026-11|80'))?.eventId, `evt_r${winner}`);
    const stored = await Promise.all(Array.from({ length: 20 }, (_, n) => store.webhooks.getDelivery(`dlv_r${n}`)));
    assert.equal(stored.filter(Boolean).length, 1);
    note('pending deliveries', (await store.webhooks.pendingDeliveries()).length);
  },
);

contract('idempotency keys: claim, renew, answer, release, lapse and purge', async (store, note) => {
  const repo = store.idempotency;
  const at = (ms: number) => iso(T0 + ms);
  const claim = (key: string, token: string, now: number, accountId = 'acc_a') => ({
    id: `${accountId}:${key}`,
    accountId,
    key,
    fingerprint: `fp_${key}`,
    createdAt: at(now),
    expiresAt: at(now + 60_000),
    claim: token,
  });
  const answered = (key: string, now: number, accountId = 'acc_a') => {
    const { claim: _, ...rest } = claim(key, '', now, accountId);
    return { ...rest, expiresAt: at(now + 86_400_000), answer: `sealed_${key}` };
  };

  assert.deepEqual(await repo.claim(claim('k1', 'tok1', 0), at(0)), { claimed: true });
  // A live claim is the answer to a second claim, whoever makes it; other accounts are other keys.
  const second = await repo.claim(claim('k1', 'tok2', 1000), at(1000));
  assert.equal(second.claimed, false);
  note('second claim', second);
  assert.deepEqual(await repo.claim(claim('k1', 'tok3', 1000, 'acc_b'), at(1000)), { claimed: true });
  assert.equal(await repo.renew('acc_a:k1', 'tok2', at(90_000)), false);
  assert.equal(await repo.renew('acc_a:k1', 'tok1', at(90_000)), true);
  note('renewed', await repo.get('acc_a:k1', at(70_000)));
  assert.equal(await repo.complete(answered('k1', 0), 'tok2'), false);
  assert.equal(await repo.complete(answered('k1', 0), 'tok1'), true);
  assert.equal(await repo.complete(answered('k1', 0), 'tok1'), false, 'a claim answers once');
  const replay = await repo.claim(claim('k1', 'tok4', 5000), at(5000));
  note('after answer', replay);
  assert.equal(replay.claimed, false);
  assert.equal((replay as { record: { answer?: string } }).record.answer, 'sealed_k1');
  await repo.release('acc_a:k1', 'tok4');
  assert.ok(await repo.get('acc_a:k1', at(5000)), 'release with a token that does not hold it changes nothing');
  // An answer is served until its expiry, then the key can be claimed again.
  assert.equal(await repo.get('acc_a:k1', at(86_400_000)), undefined);
  assert.deepEqual(await repo.claim(claim('k1', 'tok5', 86_400_000), at(86_400_000)), { claimed: true });
  await repo.release('acc_a:k1', 'tok5');
  assert.equal(await repo.get('acc_a:k1', at(86_400_000)), undefined);
  // A claim that is not renewed lapses: another claim takes it over, and the old one can no longer answer.
  await repo.claim(claim('k2', 'old', 0), at(0));
  assert.equal((await repo.claim(claim('k2', 'new', 59_999), at(59_999))).claimed, false);
  assert.deepEqual(await repo.claim(claim('k2', 'new', 60_000), at(60_000)), { claimed: true });
  assert.equal(await repo.complete(answered('k2', 0), 'old'), false);
  assert.equal(await repo.renew('acc_a:k2', 'old', at(200_000)), false);
  assert.equal(await repo.complete(answered('k2', 60_000), 'new'), true);
  // Purge drops what expired by then (answers and lapsed claims), nothing else.
  await repo.claim(claim('k3', 'tok', 0), at(0));
  await repo.purgeExpired(at(86_400_000));
  // Read as of a time before they expired: only what was deleted is absent.
  const left = [
    await repo.get('acc_a:k1', at(0)),
    await repo.get('acc_a:k2', at(0)),
    await repo.get('acc_a:k3', at(0)),
    await repo.get('acc_b:k1', at(0)),
  ];
  assert.deepEqual(
    left.map((record) => record?.id),
    [undefined, 'acc_a:k2', undefined, undefined],
  );
  note('left', left);
});

contract(
  'tasks: a settlement worked out from `finished` items is refused once another item has finished',
  async (store, note) => {
    await funded(store, 'acc_1', 10_000);
    await store.tasks.create(task(tid(1), 'acc_1', { estimate: 3000, items: 3 }), {});
    const t1 = iso(T0 + 1000);
    await store.tasks.recordItem(tid(1), 0, { status: 'success', cost: 1000, attempts: 1 }, t1);
    // A cancel read the task with one item finished; a second finishes before its settlement lands.
    await store.tasks.recordItem(tid(1), 1, { status: 'success', cost: 1000, attempts: 1 }, t1);
    const stale = {
      id: tid(1),
      status: 'completed' as const,
      result: { n: 1 },
      cost: 1000,
      at: iso(T0 + 2000),
      finished: 1,
    };
    assert.equal(await store.tasks.settle(stale), undefined, 'counted one finished item; two have');
    assert.equal((await store.tasks.get(tid(1)))?.status, 'pending');
    assert.equal(await store.tasks.reserved('acc_1'), 3000, 'nothing moved');
    const settled = await store.tasks.settle({ ...stale, cost: 2000, result: { n: 2 }, finished: 2 });
    note('settled', settled);
    assert.equal(settled?.status, 'completed');
    assert.equal(settled?.cost, 2000);
    assert.equal(await store.tasks.reserved('acc_1'), 0);
    assert.equal((await store.accounts.get('acc_1'))?.balance, 8000);
    assert.equal(
      await store.tasks.recordItem(tid(1), 2, { status: 'success', cost: 1000 }, t1),
      undefined,
      'an item finishing after the settlement is refused',
    );
  },
);

contract(
  'tasks: a settlement with `unfinishedItem` writes it over every item still pending, finished ones kept',
  async (store, note) => {
    await funded(store, 'acc_1', 10_000);
    await store.tasks.create(task(tid(1), 'acc_1', { estimate: 3000, items: 3 }), {});
    await store.tasks.recordItem(tid(1), 1, { status: 'success', cost: 1000, attempts: 1 }, iso(T0 + 1000));
    const cancelled: ItemRecord = {
      status: 'failed',
      error: { code: 'TASK_CANCELLED', message: 'the task was cancelled before this item finished' },
    };
    const settled = await store.tasks.settle({
      id: tid(1),
      status: 'completed',
      result: { n: 1 },
      cost: 1000,
      at: iso(T0 + 2000),
      finished: 1,
      unfinishedItem: cancelled,
    });
    note('settled', settled);
    assert.deepEqual(settled?.items, [cancelled, { status: 'success', cost: 1000, attempts: 1 }, cancelled]);
    assert.deepEqual(await store.tasks.get(tid(1)), settled, 'read back as the settlement answered it');
    assert.equal(await store.tasks.reserved('acc_1'), 0);
    assert.equal((await store.accounts.get('acc_1'))?.balance, 9000);
  },
);

contract(
  'console sessions: a link is used once, sessions are found by hash, revoked, listed until expiry and purged',
  async (store, note) => {
    const repo = store.consoleSessions;
    const at = (ms: number) => iso(T0 + ms);
    const record = (
      id: string,
      kind: 'link' | 'session',
      expiresIn: number,
      extra: Partial<ConsoleSessionRecord> = {},
    ): ConsoleSessionRecord => ({
      id,
      hash: `hash_${id}`,
      kind,
      accountId: 'acc_a',
      scopes: ['keys', 'manage'],
      createdAt: at(0),
      expiresAt: at(expiresIn),
      ...extra,
    });
    await repo.put(record('cs_link1', 'link', 600_000, { next: '/console/gallery' }));
    await repo.put(record('cs_link2', 'link', 600_000));
    await repo.put(record('cs_sess1', 'session', 3_600_000, { via: 'link', userAgent: 'test browser' }));
    await repo.put(record('cs_oper1', 'session', 3_600_000, { accountId: null }));

    const used = await repo.consume('hash_cs_link1', at(1000));
    note('used', used);
    assert.equal(used?.usedAt, at(1000));
    assert.equal(await repo.consume('hash_cs_link1', at(2000)), undefined, 'a second visit of the link is refused');
    assert.equal(await repo.consume('hash_cs_sess1', at(2000)), undefined, 'a session is not a link');
    assert.equal(await repo.consume('hash_nothing', at(2000)), undefined);
    assert.equal(await repo.consume('hash_cs_link2', at(600_000)), undefined, 'an expired link is refused');
    // Two visits at once: one wins.
    await repo.put(record('cs_link3', 'link', 600_000));
    const both = await Promise.all([repo.consume('hash_cs_link3', at(3000)), repo.consume('hash_cs_link3', at(3000))]);
    assert.equal(both.filter(Boolean).length, 1, 'exactly one of two concurrent visits uses the link');

    note('by hash', await repo.getByHash('hash_cs_sess1'));
    assert.equal((await repo.getByHash('hash_cs_oper1'))?.accountId, null);
    const revoked = await repo.revoke('cs_sess1', at(5000));
    note('revoked', revoked);
    assert.equal(revoked?.revokedAt, at(5000));
    assert.equal(await repo.revoke('cs_sess1', at(6000)), undefined, 'revoked once');
    assert.equal(await repo.revoke('cs_none', at(6000)), undefined);
    assert.equal((await repo.getByHash('hash_cs_sess1'))?.revokedAt, at(5000));
    await repo.put(record('cs_link4', 'link', 600_000));
    await repo.revoke('cs_link4', at(7000));
    assert.equal(await repo.consume('hash_cs_link4', at(8000)), undefined, 'a revoked link is refused');

    const listed = await repo.list(at(600_000));
    note('listed after the links expired', listed);
    assert.deepEqual(
      listed.map((r) => r.id),
      ['cs_sess1', 'cs_oper1'],
    );
    await repo.purgeExpired(at(600_000));
    assert.equal(await repo.getByHash('hash_cs_link1'), undefined, 'purged');
    assert.ok(await repo.getByHash('hash_cs_oper1'), 'a live session stays');
  },
);
