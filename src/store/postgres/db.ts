import type pg from 'pg';

/**
 * What the PostgreSQL repositories run statements through, and how records are kept (sql.ts implements it).
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
  /** Runs `fn` over one REPEATABLE READ READ ONLY transaction: every statement of `fn`'s Db reads the same moment. */
  snapshot<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Runs `statements` in order in one transaction (READ COMMITTED: each statement reads what
   * committed before it began, so one that follows the locking of rows reads them as they are
   * now), sent together in one round trip: BEGIN, the statements and COMMIT pipelined. Answers
   * each statement's result; when any fails, nothing is kept and that failure is thrown.
   */
  batch(statements: readonly Statement[]): Promise<pg.QueryResult[]>;
  /** One named statement (see Statement) on the connections batches use, atomic on its own. */
  named<R extends pg.QueryResultRow = pg.QueryResultRow>(
    statement: Statement & { name: string },
  ): Promise<pg.QueryResult<R>>;
}

/**
 * One statement of a batch. With a name, it is prepared once per connection under that name and
 * planned once (see PgStore's pipelining pool): for statements that look rows up by key only,
 * whose one good plan does not depend on how many rows the tables hold.
 */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}
