import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import pg from 'pg';
import { isAppError } from '../../../../src/domain/errors.js';
import { createPool } from '../../../../src/store/postgres/connection.js';
import { createDbHealth } from '../../../../src/store/postgres/connection-health.js';
import { PgStore } from '../../../../src/store/postgres/postgres-store.js';
import { poolDb } from '../../../../src/store/postgres/sql.js';
import { migratedSchema } from '../store-backends.js';

/**
 * A backend terminated under the store (pg_terminate_backend, as a fast restart or a failover
 * does to every session): the statement in flight fails with STORE_UNAVAILABLE, the process
 * hears no unhandled 'error' event, no ROLLBACK is queued on the dead client, and the pool
 * hands out a fresh connection next.
 */

async function terminate(url: string, pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

/** The process warnings emitted while `fn` runs (pg's "already executing a query" deprecation among them). */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

const unavailable = (err: unknown) => {
  assert.ok(isAppError(err), `an AppError, not ${(err as Error)?.stack}`);
  assert.equal(err.code, 'STORE_UNAVAILABLE');
  assert.equal(err.status, 503);
  assert.equal(err.headers?.['retry-after'], '1');
  assert.doesNotMatch(err.message, /terminat|administrator|pg|Error/);
  return true;
};

async function pooled(t: import('node:test').TestContext) {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const pool = createPool({ url, poolSize: 2 });
  const health = createDbHealth(async () => {
    await pool.query('SELECT 1');
  });
  closers.push(async () => {
    health.close();
    await pool.end();
  });
  return { url, pool, health, db: poolDb(pool, () => false, health) };
}

test('a transaction whose backend is terminated between statements fails with STORE_UNAVAILABLE, and the next one runs on a fresh connection', async (t) => {
  const { url, health, db } = await pooled(t);
  let pid = 0;
  const warnings = await warningsDuring(async () => {
    await assert.rejects(
      db.tx(async (client) => {
        pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        const ended = new Promise((resolve) => client.once('end', resolve));
        await terminate(url, pid);
        await ended; // the connection is gone while the transaction is idle between statements
        await client.query('SELECT 1');
      }),
      unavailable,
    );
  });
  assert.deepEqual(warnings, []);
  assert.match(health.failure() ?? '', /the database cannot be reached/);
  const next = await db.tx(
    async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid,
  );
  assert.notEqual(next, pid, 'the broken client was discarded');
  assert.equal(health.failure(), null, 'a statement that got through says the database is back');
});

test('a transaction whose backend is terminated during a statement fails with STORE_UNAVAILABLE, with no ROLLBACK queued on the dead client', async (t) => {
  const { url, db } = await pooled(t);
  const warnings = await warningsDuring(async () => {
    await assert.rejects(
      db.tx(async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        await Promise.all([client.query('SELECT pg_sleep(30)'), terminate(url, pid)]);
      }),
      unavailable,
    );
  });
  assert.deepEqual(warnings, []);
  assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0].one, 1);
});

test('a statement outside a transaction on a terminated backend fails with STORE_UNAVAILABLE; the next gets through', async (t) => {
  const { url, db } = await pooled(t);
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const [failed] = await Promise.allSettled([db.query('SELECT pg_sleep(30)'), terminate(url, rows[0].pid)]);
  assert.equal(failed.status, 'rejected');
  unavailable(failed.reason);
  assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0].one, 1);
});

test('a statement error is not a connection loss: it is thrown as it is, and the transaction rolled back', async (t) => {
  const { db, health } = await pooled(t);
  await db.query('CREATE TABLE t (n int PRIMARY KEY)');
  await assert.rejects(
    db.tx(async (client) => {
      await client.query('INSERT INTO t VALUES (1)');
      await client.query('INSERT INTO t VALUES (1)');
    }),
    (err: Error & { code?: string }) => err.code === '23505',
  );
  assert.equal(health.failure(), null);
  assert.equal((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n, 0);
});

test('a store whose sessions are all terminated says so in writeFailure (GET /ready), until its probe gets through; its writes then work', async (t) => {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const name = `loss-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const logged: string[] = [];
  let back: () => void = () => {};
  const answersAgain = new Promise<void>((resolve) => (back = resolve));
  const store = await PgStore.open({
    url,
    poolSize: 2,
    applicationName: name,
    log: (message) => {
      logged.push(message);
      if (/answers again/.test(message)) back();
    },
  });
  closers.push(() => store.close());
  await store.accounts.create({
    id: 'acc_1',
    name: 'one',
    balance: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  });
  assert.equal(store.writeFailure(), null);

  const broken = once(store.pool, 'error');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
  await admin.end();
  await broken; // the idle pooled connection heard its session end
  assert.match(store.writeFailure() ?? '', /the database cannot be reached/);
  // The probe's timer does not hold the process open (a CLI command exits without closing it): this does, meanwhile.
  const alive = setInterval(() => {}, 1000);
  await answersAgain.finally(() => clearInterval(alive));
  assert.equal(store.writeFailure(), null);
  assert.equal((await store.accounts.get('acc_1'))?.name, 'one');
  assert.ok(logged.some((line) => /cannot be reached/.test(line)));
});
