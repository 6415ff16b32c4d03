import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { LATEST_SCHEMA, MIGRATIONS } from '../../../../src/store/postgres/migrations.js';
import { migrate, PgStore, schemaVersion } from '../../../../src/store/postgres/postgres-store.js';
import { migratedSchema } from '../store-backends.js';

async function run(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

test('migrations are numbered 1, 2, … in order', () => {
  assert.deepEqual(
    MIGRATIONS.map((m) => m.version),
    Array.from({ length: MIGRATIONS.length }, (_, i) => i + 1),
  );
  assert.equal(LATEST_SCHEMA, MIGRATIONS.length);
});

test('migrate applies the schema once; a second run is a no-op', async (t) => {
  const url = await migratedSchema(t, [], { migrated: false });
  assert.deepEqual(await schemaVersion(url), { current: 0, latest: LATEST_SCHEMA });
  const logged: string[] = [];
  const first = await migrate(url, (m) => logged.push(m));
  assert.deepEqual(first, { from: 0, to: LATEST_SCHEMA, applied: MIGRATIONS.map((m) => `${m.version} ${m.name}`) });
  assert.equal(logged.length, MIGRATIONS.length);
  const second = await migrate(url);
  assert.deepEqual(second, { from: LATEST_SCHEMA, to: LATEST_SCHEMA, applied: [] });
  assert.deepEqual(await schemaVersion(url), { current: LATEST_SCHEMA, latest: LATEST_SCHEMA });
  const { rows } = await run(url, 'SELECT version, name FROM imgtask_schema_migrations ORDER BY version');
  assert.deepEqual(
    rows.map((r) => r.version),
    MIGRATIONS.map((m) => m.version),
  );
});

test('two processes migrating at once both succeed and apply each migration once', async (t) => {
  const url = await migratedSchema(t, [], { migrated: false });
  const [a, b] = await Promise.all([migrate(url), migrate(url)]);
  assert.equal(a.to, LATEST_SCHEMA);
  assert.equal(b.to, LATEST_SCHEMA);
  assert.equal(a.applied.length + b.applied.length, MIGRATIONS.length, 'each migration applied by exactly one of them');
  const { rows } = await run(url, 'SELECT count(*)::int AS n FROM imgtask_schema_migrations');
  assert.equal(rows[0].n, MIGRATIONS.length);
});

test('a database without the schema is refused with the migrate hint', async (t) => {
  const url = await migratedSchema(t, [], { migrated: false });
  await assert.rejects(PgStore.open({ url }), /run imgtask migrate/);
});

test('a database with a newer schema is refused, by open and by migrate', async (t) => {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const store = await PgStore.open({ url, poolSize: 1 });
  closers.push(() => store.close());
  assert.equal(store.writeFailure(), null, 'the current schema opens');
  await run(
    url,
    `INSERT INTO imgtask_schema_migrations (version, name) VALUES (${LATEST_SCHEMA + 1}, 'from the future')`,
  );
  await assert.rejects(
    PgStore.open({ url }),
    new RegExp(`older than the database schema v${LATEST_SCHEMA + 1}; upgrade imgtask`),
  );
  await assert.rejects(migrate(url), /upgrade imgtask/);
  assert.deepEqual(await schemaVersion(url), { current: LATEST_SCHEMA + 1, latest: LATEST_SCHEMA });
});

test('migration 6 gives deliveries already stored their event id, docs holding a NUL or a lone surrogate included', async (t) => {
  const url = await migratedSchema(t, [], { migrated: false });
  // The schema as of v5, by hand: each migration's statements, then its record.
  await run(
    url,
    'CREATE TABLE imgtask_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) {
    await run(url, migration.sql);
    await run(url, `INSERT INTO imgtask_schema_migrations (version, name) VALUES (${migration.version}, 'by hand')`);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const docs = [
      ['dlv_1', { id: 'dlv_1', eventId: 'evt_a', accountId: 'acc_1', url: 'https://x.example/\u0000' }],
      [
        'dlv_2',
        { id: 'dlv_2', eventId: 'evt_b', accountId: 'acc_1', url: 'https://x.example/\ud800"eventId":"evt_a"' },
      ],
    ] as const;
    for (const [id, doc] of docs) {
      await client.query(
        `INSERT INTO deliveries (id, webhook_id, status, next_attempt_at, updated_at, attempts, doc) VALUES ($1, null, 'delivered', null, 'x', '[]', $2)`,
        [id, JSON.stringify(doc)],
      );
    }
  } finally {
    await client.end();
  }
  assert.deepEqual(
    (await migrate(url)).applied,
    MIGRATIONS.filter((m) => m.version > 5).map((m) => `${m.version} ${m.name}`),
  );
  const { rows } = await run(url, 'SELECT id, event_id FROM deliveries ORDER BY id');
  assert.deepEqual(rows, [
    { id: 'dlv_1', event_id: 'evt_a' },
    { id: 'dlv_2', event_id: 'evt_b' },
  ]);
});
