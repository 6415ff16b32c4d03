import { groupCommit, type Outcome } from './group-commit.js';

/**
 * SQLSTATEs after which the same batch is simply run again: a deadlock victim (40P01), a serialization failure (40001).
 */
const RETRIED = new Set(['40P01', '40001']);
const TRIES = 3;

const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/**
 * Whether one member of a batch may have caused `err` with its own data (SQLSTATE class 22, a
 * value out of range or not valid; class 23, a key already taken): then each member is tried
 * alone, so only that one fails. Anything else (the database out of reach, out of space) is the
 * whole batch's answer.
 */
export const memberMayCause = (err: unknown): boolean => /^2[23]/.test(sqlState(err) ?? '');

/**
 * Runs a batch's write, again (up to 3 tries in all) when the database picked it as a deadlock
 * victim or failed it for serialization: nothing of it was kept, and its locks are taken in one
 * order by every writer, so another try goes through.
 */
export async function withBatchRetries<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= TRIES || !RETRIED.has(sqlState(err) ?? '')) throw err;
    }
  }
}

/** The most writes of one kind in one batch (the statements' arrays stay a sensible size). */
const MAX_BATCH = 256;

/**
 * Group commit for one kind of write: `once` runs a batch (again on a deadlock or serialization
 * failure) and answers each member; a statement error one member may have caused runs each
 * alone, so only that one fails. `key`: members with the same key never share a batch.
 */
export function batchedWrites<I, O>(
  once: (members: readonly I[]) => Promise<Outcome<O>[]>,
  key?: (member: I) => string,
): (member: I) => Promise<O> {
  const batcher = groupCommit<I, O>({
    maxBatch: MAX_BATCH,
    key,
    async run(members) {
      try {
        return await withBatchRetries(() => once(members));
      } catch (err) {
        if (members.length === 1 || !memberMayCause(err)) throw err;
        const outcomes: Outcome<O>[] = [];
        for (const member of members)
          outcomes.push(
            ...(await withBatchRetries(() => once([member])).catch((error: unknown) => [
              { ok: false as const, error },
            ])),
          );
        return outcomes;
      }
    },
  });
  return (member) => batcher.submit(member);
}
