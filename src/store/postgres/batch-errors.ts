/** SQLSTATEs after which the same batch is simply run again: a deadlock victim (40P01), a serialization failure (40001). */
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
