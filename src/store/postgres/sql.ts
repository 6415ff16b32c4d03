import type pg from 'pg';
import { type DbHealth, isConnectionError, storeUnavailable } from './connection-health.js';
import type { Db, Statement } from './db.js';
import type { Pipelines } from './pipelines.js';

/** What the PostgreSQL repositories share: the pool's checkouts and transactions, and how records are kept. */

export class StoreClosed extends Error {}

/**
 * A client checked out of the pool, and the error that broke its connection, if one did (set by its user when it must
 * not be reused).
 */
export interface Held {
  client: pg.PoolClient;
  broken?: Error;
  /** Gives the client back: to the pool, or, when its connection broke, to be discarded. */
  release(): void;
}

/**
 * Checks a client out of `pool` with an error listener on it until `release()`: pg-pool removes
 * its own on checkout, and a connection that breaks while the client is held (the server
 * restarts, the backend is terminated) emits 'error', which unheard ends the process. The
 * listener is attached in pg-pool's callback, at once: a promise would attach it a microtask
 * later, after an error that arrived in the same packet as the new connection's readiness.
 * Its user is told nothing: its next statement fails. A client whose connection broke is
 * released with the error, so the pool discards it instead of handing it out again.
 */
export function checkout(pool: pg.Pool): Promise<Held> {
  return new Promise((resolve, reject) => {
    pool.connect((err, client, done) => {
      if (err || !client) return reject(err ?? new Error('no client'));
      const onError = (error: Error) => {
        held.broken ??= error;
      };
      const held: Held = {
        client,
        release() {
          client.off('error', onError);
          done(held.broken);
        },
      };
      client.on('error', onError);
      resolve(held);
    });
  });
}

/** Runs `fn` on a checked-out client; a connection error it throws marks the client broken. */
async function withClient<T>(pool: pg.Pool, fn: (held: Held) => Promise<T>): Promise<T> {
  const held = await checkout(pool);
  try {
    return await fn(held);
  } catch (err) {
    if (isConnectionError(err)) held.broken ??= err as Error;
    throw err;
  } finally {
    held.release();
  }
}

/**
 * Runs `fn` between `begin` and COMMIT on one held client. When `fn` (or COMMIT) throws, the
 * transaction is rolled back, unless the connection is gone: then there is nothing to roll back
 * (the server ended the transaction with the session), a ROLLBACK would only be queued behind
 * the failed statement on a dead client, and what failed the transaction is the lost connection.
 */
export function transaction<T>(pool: pg.Pool, begin: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (held) => {
    const { client } = held;
    await client.query(begin);
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      if (held.broken) throw held.broken;
      if (isConnectionError(err)) throw err;
      try {
        await client.query('ROLLBACK');
      } catch (rollbackFailed) {
        // Its state is unknown: the pool must not hand it out again.
        held.broken = rollbackFailed as Error;
        if (isConnectionError(rollbackFailed)) throw rollbackFailed;
      }
      throw err;
    }
  });
}

/** The statements one after the other on a client already in a transaction (or on a pool, in one of their own). */
async function inOrder(
  client: Pick<pg.PoolClient, 'query'>,
  statements: readonly Statement[],
): Promise<pg.QueryResult[]> {
  const results: pg.QueryResult[] = [];
  for (const statement of statements) results.push(await client.query(statement));
  return results;
}

/** A Db over one client already in a transaction: statements run there, and `tx` and `batch` run inside it. */
function clientDb(client: pg.PoolClient): Db {
  const db: Db = {
    query: (text, values) => client.query(text, values),
    tx: (fn) => fn(client),
    snapshot: (fn) => fn(db),
    batch: (statements) => inOrder(client, statements),
    named: (statement) => client.query(statement),
  };
  return db;
}

/**
 * A Db over a pool, refusing work once `closed()` says so. A statement that fails because the
 * database is out of reach fails with STORE_UNAVAILABLE (503, Retry-After) and tells `health`;
 * one that gets through tells it the database answers. Batches and named statements go through
 * `pipelines` (pipelines.ts: a batch in one round trip), or without them, on the pool one
 * statement after the other.
 */
export function poolDb(pool: pg.Pool, closed: () => boolean, health?: DbHealth, pipelines?: Pipelines): Db {
  const check = () => {
    if (closed()) throw new StoreClosed('the store is closed');
  };
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    check();
    try {
      const result = await work();
      health?.ok();
      return result;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      health?.failed(err as Error);
      throw storeUnavailable();
    }
  };
  return {
    query: (text, values) => guarded(() => pool.query(text, values)),
    tx: (fn) => guarded(() => transaction(pool, 'BEGIN', fn)),
    snapshot: (fn) =>
      guarded(() =>
        transaction(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', (client) => fn(clientDb(client))),
      ),
    batch: (statements) =>
      guarded(() =>
        pipelines
          ? pipelines.run(statements, true)
          : transaction(pool, 'BEGIN', (client) => inOrder(client, statements)),
      ),
    named: async <R extends pg.QueryResultRow>(statement: Statement & { name: string }) =>
      (
        await guarded(() =>
          pipelines ? pipelines.run([statement], false) : pool.query(statement).then((result) => [result]),
        )
      )[0] as pg.QueryResult<R>,
  };
}

/** JSON text of a value for a text column; SQL NULL for undefined (the field is absent). */
export const encode = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
/** A record column read back; absent stays absent. */
export const decode = <T>(text: string | null | undefined): T | undefined =>
  text === null || text === undefined ? undefined : (JSON.parse(text) as T);

/**
 * A string PostgreSQL text can hold for an equality lookup. Text refuses NUL: no stored key
 * holds one (ids are generated, names are kept as JSON text), so a lookup with one finds nothing.
 */
export const hasNul = (value: string): boolean => value.includes('\0');

/** How a name is kept in a unique column: its JSON text, which holds any string exactly (NUL, lone surrogates). */
export const nameKey = (name: string): string => JSON.stringify(name);

/** A copy of `record` without `keys`, and with undefined fields dropped: the part kept as the `doc` column. */
export function docOf(record: object, keys: readonly string[]): string {
  const doc: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!keys.includes(key) && value !== undefined) doc[key] = value;
  return JSON.stringify(doc);
}

/** A record as stored: the same JSON round trip a read answers, so a write answers what a later read will. */
export const stored = <T>(record: T): T => JSON.parse(JSON.stringify(record)) as T;

/** PostgreSQL's unique_violation, on the named constraint or index. */
export const isUniqueViolation = (err: unknown, constraint: string): boolean =>
  (err as { code?: string; constraint?: string })?.code === '23505' &&
  (err as { constraint?: string }).constraint === constraint;
