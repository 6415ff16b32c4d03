import pg from 'pg';

/**
 * What the PostgreSQL repositories share: the pool, transactions, and how records are kept.
 *
 * Records (and their nested values: a task's request, an item's result) are kept as the text
 * `JSON.stringify` writes, in `text` columns, and parsed back with `JSON.parse`: what is read
 * deep-equals what was written (key order included), and PostgreSQL never has to validate JSON
 * (its json types refuse `\u0000` and lone surrogates, which a request may hold). The columns
 * that queries filter, sort or lock on sit beside the record.
 */
export interface Db {
  /** One statement on any pooled connection (atomic on its own). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs `fn` in one transaction (READ COMMITTED): committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

const INT8 = 20;
const NUMERIC = 1700;

/** bigint (micro-USD, counts) and numeric (sums) as JS numbers: every amount fits in 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => (value === null ? null : Number(value));
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function createPool(options: { url: string; poolSize?: number; applicationName?: string; log?: (message: string) => void }): pg.Pool {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, application_name: options.applicationName ?? 'imgtask', types });
  // An idle connection that breaks (the server restarts) must not take the process down: the pool drops it.
  pool.on('error', (err) => options.log?.(`postgres: idle connection error: ${err.message}`));
  return pool;
}

export function clientConfig(url: string): pg.ClientConfig {
  return { connectionString: url, types };
}

export class StoreClosed extends Error {}

/** A Db over a pool, refusing work once `closed()` says so. */
export function poolDb(pool: pg.Pool, closed: () => boolean): Db {
  const check = () => {
    if (closed()) throw new StoreClosed('the store is closed');
  };
  return {
    async query(text, values) {
      check();
      return pool.query(text, values);
    },
    async tx(fn) {
      check();
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // the connection is gone: the pool must not hand it out again
        }
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** JSON text of a value for a text column; SQL NULL for undefined (the field is absent). */
export const encode = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
/** A record column read back; absent stays absent. */
export const decode = <T>(text: string | null | undefined): T | undefined => (text === null || text === undefined ? undefined : (JSON.parse(text) as T));

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
  (err as { code?: string; constraint?: string })?.code === '23505' && (err as { constraint?: string }).constraint === constraint;
