import type pg from 'pg';
import type { Db } from './db.js';
import { groupCommit } from './group-commit.js';

/** The most keys read by one statement. */
const MAX_KEYS = 256;

/**
 * Point reads by key, batched: the reads asked for while a statement reading others is in flight
 * go together in the next one (`WHERE key = ANY(...)`), each key once, so a burst costs one
 * statement per batch instead of one per read. A read is always sent after it was asked for, so
 * it sees every write that had committed by then. `load` answers the rows found by key; each
 * caller gets a record of its own (`toValue` of the row), or undefined when none was found.
 */
export function batchedReads<R, V>(
  load: (keys: string[]) => Promise<Map<string, R>>,
  toValue: (row: R) => V,
): (key: string) => Promise<V | undefined> {
  const batcher = groupCommit<string, V | undefined>({
    maxBatch: MAX_KEYS,
    async run(keys) {
      const rows = await load([...new Set(keys)]);
      return keys.map((key) => {
        const row = rows.get(key);
        return { ok: true, value: row === undefined ? undefined : toValue(row) };
      });
    },
  });
  return (key) => batcher.submit(key);
}

/** One value read for everyone who asked while the statement before was in flight (a count). */
export function sharedRead<V>(load: () => Promise<V>): () => Promise<V> {
  const batcher = groupCommit<null, V>({
    maxBatch: Number.POSITIVE_INFINITY,
    async run(members) {
      const value = await load();
      return members.map(() => ({ ok: true, value }));
    },
  });
  return () => batcher.submit(null);
}

/**
 * `batchedReads` over one named statement that takes the keys as `$1::text[]` and answers each
 * row found with its key in the column `key`.
 */
export function rowsByKey<R extends pg.QueryResultRow, V, K extends string>(
  db: Db,
  statement: { name: string; text: string; key: K },
  toValue: (row: R) => V,
): (key: string) => Promise<V | undefined> {
  return batchedReads(async (keys) => {
    const { rows } = await db.named<R & Record<K, string>>({
      name: statement.name,
      text: statement.text,
      values: [keys],
    });
    return new Map(rows.map((row) => [row[statement.key], row]));
  }, toValue);
}
