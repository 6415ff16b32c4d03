import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { checkLedger } from '../../../../../src/services/doctor.js';
import { MIGRATIONS } from '../../../../../src/store/postgres/migrations.js';
import { migrate, PgStore } from '../../../../../src/store/postgres/postgres-store.js';
import type { TaskRecord } from '../../../../../src/store/records/tasks.js';
import type { DeliveryRecord, EventRecord } from '../../../../../src/store/records/webhooks.js';
import { sql, tablesHolding } from '../../../../helpers/postgres.js';
import { migratedSchema } from '../../store-backends.js';

/**
 * Removing data on PostgreSQL (docs/data-lifecycle.md): what a client wrote leaves every table,
 * the migration that makes it possible applies to a database already in use, and the ledger
 * still adds up while data is removed and records purged beside creates and settlements.
 */
const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const iso = (millis: number) => new Date(millis).toISOString();
const AT = iso(T0);

async function open(
  t: TestContext,
  options: { migrated?: boolean } = {},
): Promise<{ url: string; store: () => Promise<PgStore> }> {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers, options);
  return {
    url,
    async store() {
      const store = await PgStore.open({ url, poolSize: 8 });
      closers.push(() => store.close());
      return store;
    },
  };
}

const task = (id: string, accountId: string, request: unknown, items = 1, estimate = 1000): TaskRecord => ({
  id,
  type: 'image.generate',
  status: 'pending',
  accountId,
  apiKeyId: null,
  request,
  items: Array.from({ length: items }, () => ({ status: 'pending' as const })),
  estimate,
  cost: 0,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});

test('after removeData, replaceEventPayload, purgeDeliveries(account) and deleteByAccount, no table holds a prompt, metadata value, alt text or payload', async (t) => {
  const { url, store: openStore } = await open(t);
  const store = await openStore();
  const marker = `zqx${Math.random().toString(36).slice(2, 10)}mark`;
  const at = iso(T0 + 1000);
  await store.accounts.create({ id: 'acc_m', name: 'mira', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.create({ id: 'acc_o', name: 'otto', balance: 0, createdAt: AT, updatedAt: AT });
  for (const id of ['acc_m', 'acc_o'])
    await store.accounts.credit({ id: `crd_${id}`, accountId: id, amount: 10_000, createdAt: AT });

  // A generation with a prompt, metadata, an alt text, a magic prompt and files; a failure whose message quotes the
  // prompt.
  await store.tasks.create(
    task('tsk_1', 'acc_m', { prompt: `a fox, ${marker}`, metadata: { note: marker, n: 1 } }, 2),
    {},
  );
  await store.tasks.recordItem(
    'tsk_1',
    0,
    { status: 'success', cost: 400, result: { alt: `alt ${marker}` }, files: [{ name: 'img_1.png', bytes: 1200 }] },
    at,
    {
      model: 'flux',
      prompt: marker,
    },
  );
  await store.tasks.settle({
    id: 'tsk_1',
    status: 'completed',
    result: { model: 'flux', images: [{ alt: marker }], magic_prompt: { positive: marker } },
    cost: 800,
    at,
    lastItem: {
      index: 1,
      item: {
        status: 'success',
        cost: 400,
        files: [
          { name: 'img_2.png', bytes: 800 },
          { name: 'img_2.thumb.webp', bytes: 100 },
        ],
      },
    },
  });
  await store.tasks.create(task('tsk_2', 'acc_m', { prompt: marker }), {});
  await store.tasks.settle({
    id: 'tsk_2',
    status: 'failed',
    result: null,
    errors: [{ code: 'PROVIDER_ERROR', message: `refused: ${marker}` }],
    cost: 0,
    at,
  });
  // Another account's task keeps its data: the marker there shows the dump does see it.
  await store.tasks.create(task('tsk_o', 'acc_o', { prompt: `other ${marker}` }), {});
  assert.equal(await store.tasks.storedBytes('acc_m'), 2100, 'the files of both items');

  const event: EventRecord = {
    id: 'evt_1',
    type: 'task.completed',
    accountId: 'acc_m',
    taskId: 'tsk_1',
    createdAt: at,
    payload: { data: { metadata: { note: marker } } },
  };
  const delivery = (id: string, status: DeliveryRecord['status']): DeliveryRecord => ({
    id,
    eventId: 'evt_1',
    accountId: 'acc_m',
    webhookId: null,
    url: 'https://hooks.example/in',
    status,
    attempts: [],
    nextAttemptAt: status === 'pending' ? at : null,
    createdAt: at,
    updatedAt: at,
  });
  await store.webhooks.recordEvent(event, [delivery('dlv_1', 'pending'), delivery('dlv_2', 'delivered')]);
  await store.webhooks.recordAttempt(
    'dlv_1',
    { at, status: 500, latencyMs: 3, error: `echo ${marker}` },
    'pending',
    at,
  );
  const { claimed } = await store.idempotency.claim(
    {
      id: 'acc_m:k1',
      accountId: 'acc_m',
      key: 'k1',
      fingerprint: 'f',
      createdAt: at,
      expiresAt: iso(T0 + 86_400_000),
      answer: `{"prompt":"${marker}"}`,
    },
    at,
  );
  assert.ok(claimed);
  await store.consoleSessions.put({
    id: 'cs_1',
    hash: 'h1',
    kind: 'session',
    accountId: 'acc_m',
    scopes: [],
    createdAt: at,
    expiresAt: iso(T0 + 3_600_000),
    userAgent: marker,
  });
  await store.consoleSessions.put({
    id: 'cs_op',
    hash: 'h2',
    kind: 'session',
    accountId: null,
    scopes: [],
    createdAt: at,
    expiresAt: iso(T0 + 3_600_000),
  });

  assert.deepEqual(
    await tablesHolding(url, marker),
    ['console_sessions', 'deliveries', 'events', 'idempotency_keys', 'task_items', 'tasks'],
    'the marker is where it was put',
  );

  const removedAt = iso(T0 + 5000);
  const scrubbed = await store.tasks.removeData('tsk_1', removedAt);
  assert.equal(scrubbed?.dataRemovedAt, removedAt);
  assert.deepEqual(scrubbed?.prepared, { model: 'flux' }, 'the model stays for usage');
  assert.deepEqual(await store.tasks.get('tsk_1'), scrubbed, 'read back as answered');
  assert.deepEqual((await store.tasks.removeData('tsk_2', removedAt))?.errors, [{ code: 'PROVIDER_ERROR' }]);
  assert.equal(await store.tasks.storedBytes('acc_m'), 0);
  assert.deepEqual(
    (await store.tasks.list('acc_m', { limit: 10, metadata: { note: marker } })).tasks,
    [],
    'a metadata filter no longer finds it',
  );
  assert.equal(await store.webhooks.replaceEventPayload('evt_1', { data: { id: 'tsk_1', dataRemoved: true } }), true);
  assert.deepEqual((await store.webhooks.getEvent('evt_1'))?.payload, { data: { id: 'tsk_1', dataRemoved: true } });
  assert.equal(await store.webhooks.replaceEventPayload('evt_none', {}), false);
  assert.equal(await store.webhooks.purgeDeliveries(AT, 1, 'acc_m'), 1, 'a batch at a time, the pending one too');
  assert.ok(await store.webhooks.getEvent('evt_1'), 'its event stays while a delivery of it does');
  assert.equal(await store.webhooks.purgeDeliveries(AT, 100, 'acc_m'), 1);
  assert.equal(await store.webhooks.getEvent('evt_1'), undefined, 'then the event goes with its last delivery');
  assert.equal(await store.idempotency.deleteByAccount('acc_m'), 1);
  assert.equal(await store.consoleSessions.deleteByAccount('acc_m'), 1);
  assert.ok(await store.consoleSessions.getByHash('h2'), "the operator's session stays");

  assert.deepEqual(await tablesHolding(url, marker), ['tasks'], 'only the other account still holds it');
  await store.tasks.settle({ id: 'tsk_o', status: 'failed', result: null, cost: 0, at });
  await store.tasks.removeData('tsk_o', removedAt);
  assert.deepEqual(await tablesHolding(url, marker), []);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('purge deletes scrubbed settled tasks only, and moves their charges to removedCharges: the balance and the ledger stay', async (t) => {
  const store = await (await open(t)).store();
  await store.accounts.create({ id: 'acc_1', name: 'ann', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 10_000, createdAt: AT });
  for (const n of [1, 2, 3]) await store.tasks.create(task(`tsk_${n}`, 'acc_1', { prompt: 'p' }), {});
  await store.tasks.settle({
    id: 'tsk_1',
    status: 'completed',
    result: null,
    cost: 700,
    at: iso(T0 + 1),
    lastItem: { index: 0, item: { status: 'success', cost: 700 } },
  });
  await store.tasks.settle({
    id: 'tsk_2',
    status: 'completed',
    result: null,
    cost: 300,
    at: iso(T0 + 2),
    lastItem: { index: 0, item: { status: 'success', cost: 300 } },
  });
  assert.equal(await store.tasks.purge(['tsk_1', 'tsk_2', 'tsk_3']), 0, 'none is scrubbed: nothing deleted');
  assert.equal(
    await store.tasks.removeData('tsk_3', AT).then((t3) => t3?.dataRemovedAt),
    undefined,
    'a pending task keeps its data',
  );
  await store.tasks.removeData('tsk_1', AT);
  assert.deepEqual(await store.tasks.settledBefore('acc_1', iso(T0 + 10), 10), ['tsk_1', 'tsk_2']);
  assert.deepEqual(
    (await store.tasks.withDataSettledBefore('acc_1', iso(T0 + 10), 10)).map((one) => one.id),
    ['tsk_2'],
  );
  assert.equal(await store.tasks.purge(['tsk_1', 'tsk_1', 'tsk_2', 'tsk_3', 'tsk_none']), 1);
  assert.equal(await store.tasks.get('tsk_1'), undefined);
  const account = await store.accounts.get('acc_1');
  assert.equal(account?.balance, 9000);
  assert.equal(account?.removedCharges, 700);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('purge and removeData beside creates and settlements keep the ledger clean at every moment', async (t) => {
  const store = await (await open(t)).store();
  await store.accounts.create({ id: 'acc_1', name: 'ann', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 10_000_000, createdAt: AT });
  const settle = (id: string, n: number) =>
    store.tasks.settle({
      id,
      status: 'completed',
      result: null,
      cost: 100 + (n % 7),
      at: iso(T0 + n),
      lastItem: { index: 0, item: { status: 'success', cost: 100 + (n % 7) } },
    });
  // Settled tasks for the sweep to work on, then more created and settled while it runs.
  const old = Array.from({ length: 60 }, (_, n) => `tsk_a${String(n).padStart(3, '0')}`);
  await Promise.all(old.map((id) => store.tasks.create(task(id, 'acc_1', { prompt: 'p' }), {})));
  await Promise.all(old.map((id, n) => settle(id, n)));
  const busy = (async () => {
    for (let round = 0; round < 6; round++) {
      const ids = Array.from({ length: 20 }, (_, n) => `tsk_b${round}_${n}`);
      await Promise.all(ids.map((id) => store.tasks.create(task(id, 'acc_1', { prompt: 'p' }), {})));
      await Promise.all(ids.map((id, n) => settle(id, 1000 + n)));
    }
  })();
  const sweep = (async () => {
    for (let from = 0; from < old.length; from += 10) {
      const batch = await store.tasks.withDataSettledBefore('acc_1', iso(T0 + 100), 10);
      await Promise.all(batch.map((one) => store.tasks.removeData(one.id, AT)));
      await store.tasks.purge(await store.tasks.settledBefore('acc_1', iso(T0 + 100), 10));
    }
  })();
  const checks: string[][] = [];
  const checking = (async () => {
    for (let i = 0; i < 8; i++) checks.push((await checkLedger(store)).problems);
  })();
  await Promise.all([busy, sweep, checking]);
  assert.deepEqual(checks.flat(), [], 'no check saw the books off');
  assert.deepEqual(await store.tasks.settledBefore('acc_1', iso(T0 + 100), 100), [], 'every old task purged');
  const expected = old.reduce((sum, _id, n) => sum + 100 + (n % 7), 0);
  assert.equal((await store.accounts.get('acc_1'))?.removedCharges, expected);
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('migration 8 applies to a database in use at v7: events, deliveries and console sessions get their account, tasks keep their data', async (t) => {
  const { url, store: openStore } = await open(t, { migrated: false });
  await sql(
    url,
    'CREATE TABLE imgtask_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) {
    await sql(url, migration.sql);
    await sql(url, `INSERT INTO imgtask_schema_migrations (version, name) VALUES (${migration.version}, 'by hand')`);
  }
  // Rows as v7 code wrote them; a doc may hold a NUL escape or a lone surrogate, and a payload its own accountId.
  await sql(
    url,
    `INSERT INTO accounts (id, name_key, balance, created_at, updated_at) VALUES ('acc_1', '"ann"', 5000, $1, $1)`,
    [AT],
  );
  await sql(url, `INSERT INTO credits (id, account_id, doc) VALUES ('crd_1', 'acc_1', $1)`, [
    JSON.stringify({ id: 'crd_1', accountId: 'acc_1', amount: 5000, createdAt: AT }),
  ]);
  const old = { ...task('tsk_1', 'acc_1', { prompt: 'old \u0000 \ud800' }), status: 'completed' as const, cost: 0 };
  await sql(
    url,
    `INSERT INTO tasks (id, account_id, type, status, estimate, cost, created_at, updated_at, settled_seq, doc) VALUES ('tsk_1', 'acc_1', 'image.generate', 'completed', 1000, 0, $1, $1, nextval('imgtask_order'), $2)`,
    [
      AT,
      JSON.stringify({
        id: old.id,
        type: old.type,
        accountId: 'acc_1',
        apiKeyId: null,
        request: old.request,
        estimate: 1000,
        createdAt: AT,
      }),
    ],
  );
  await sql(
    url,
    `INSERT INTO task_items (task_id, idx, status, doc) VALUES ('tsk_1', 0, 'success', '{"status":"success"}')`,
  );
  await sql(url, 'INSERT INTO events (id, task_id, doc) VALUES ($1, $2, $3), ($4, NULL, $5)', [
    'evt_task',
    'tsk_1',
    JSON.stringify({
      id: 'evt_task',
      type: 'task.completed',
      accountId: 'acc_1',
      taskId: 'tsk_1',
      createdAt: AT,
      payload: { accountId: 'acc_x' },
    }),
    'evt_bill',
    JSON.stringify({
      id: 'evt_bill',
      type: 'billing.threshold_reached',
      accountId: 'acc_1',
      taskId: null,
      createdAt: AT,
      payload: { data: '\u0000' },
    }),
  ]);
  await sql(
    url,
    `INSERT INTO deliveries (id, event_id, webhook_id, status, next_attempt_at, updated_at, attempts, doc) VALUES ('dlv_1', 'evt_task', NULL, 'delivered', NULL, $1, '[]', $2)`,
    [
      AT,
      JSON.stringify({
        id: 'dlv_1',
        url: 'https://x.example/"accountId":"acc_x"\ud800',
        eventId: 'evt_task',
        accountId: 'acc_1',
        createdAt: AT,
      }),
    ],
  );
  for (const [id, accountId] of [
    ['cs_1', 'acc_1'],
    ['cs_op', null],
  ] as const) {
    await sql(
      url,
      `INSERT INTO console_sessions (id, hash, kind, expires_at, doc) VALUES ($1, $1, 'session', $2, $3)`,
      [
        id,
        iso(T0 + 3_600_000),
        JSON.stringify({
          id,
          hash: id,
          next: '"accountId":"acc_x"',
          kind: 'session',
          accountId,
          scopes: [],
          createdAt: AT,
        }),
      ],
    );
  }

  assert.deepEqual((await migrate(url)).applied, ['8 data that can be deleted']);
  assert.deepEqual(await sql(url, 'SELECT id, account_id FROM events ORDER BY id'), [
    { id: 'evt_bill', account_id: 'acc_1' },
    { id: 'evt_task', account_id: 'acc_1' },
  ]);
  assert.deepEqual(await sql(url, 'SELECT id, account_id FROM deliveries'), [{ id: 'dlv_1', account_id: 'acc_1' }]);
  assert.deepEqual(await sql(url, 'SELECT id, account_id FROM console_sessions ORDER BY id'), [
    { id: 'cs_1', account_id: 'acc_1' },
    { id: 'cs_op', account_id: null },
  ]);

  const store = await openStore();
  const account = await store.accounts.get('acc_1');
  assert.deepEqual(
    account,
    { id: 'acc_1', name: 'ann', balance: 5000, createdAt: AT, updatedAt: AT },
    'nothing removed, no overrides',
  );
  assert.deepEqual((await store.tasks.get('tsk_1'))?.request, old.request, 'the task keeps its data');
  assert.equal(await store.tasks.storedBytes('acc_1'), 0);
  assert.deepEqual(
    await store.tasks.withDataSettledBefore('acc_1', iso(T0 + 1), 10).then((list) => list.map((one) => one.id)),
    ['tsk_1'],
  );
  assert.equal(await store.webhooks.purgeDeliveries(AT, 10, 'acc_1'), 1);
  assert.deepEqual(
    await sql(url, 'SELECT id FROM events'),
    [],
    'both events of the account go, the one without deliveries too',
  );
  assert.equal(await store.consoleSessions.deleteByAccount('acc_1'), 1);
  assert.ok(await store.tasks.removeData('tsk_1', AT));
  assert.equal(await store.tasks.purge(['tsk_1']), 1);
  assert.deepEqual((await checkLedger(store)).problems, []);
});
