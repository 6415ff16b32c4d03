import type { IdempotencyRecord } from '../../records/idempotency.js';
import type { IdempotencyRepo } from '../../repos/idempotency.js';
import type { Db } from '../db.js';
import { hasNul } from '../sql.js';

/** `<accountId>:<key>`: account ids hold no colon, so the first one splits. */
const split = (id: string): [string, string] => {
  const at = id.indexOf(':');
  return [id.slice(0, at), id.slice(at + 1)];
};

/** The doc without `expiresAt`, which lives in its column (a renewal moves only the column). */
const docOf = ({ expiresAt: _, ...rest }: IdempotencyRecord): string => JSON.stringify(rest);

const read = (row: { doc: string; expires_at: Date }): IdempotencyRecord => ({
  ...(JSON.parse(row.doc) as Omit<IdempotencyRecord, 'expiresAt'>),
  expiresAt: row.expires_at.toISOString(),
});

/**
 * Idempotency-Key records in `idempotency_keys`: a claim is a row with its token in `claim`,
 * shared by every process on the database; the primary key makes two claims of one key one
 * winner. Times are the callers' clock, as given.
 */
export function createPgIdempotencyRepo(db: Db): IdempotencyRepo {
  const select = async (id: string, now: string): Promise<IdempotencyRecord | undefined> => {
    const [accountId, key] = split(id);
    const { rows } = await db.query<{ doc: string; expires_at: Date }>(
      'SELECT doc, expires_at FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > $3::timestamptz',
      [accountId, key, now],
    );
    return rows[0] ? read(rows[0]) : undefined;
  };
  return {
    async claim(record, now) {
      for (;;) {
        // Inserts, or takes over a row that has expired; a live row is left as it is.
        const taken = await db.query(
          `INSERT INTO idempotency_keys (account_id, key, claim, expires_at, doc) VALUES ($1, $2, $3, $4::timestamptz, $5)
           ON CONFLICT (account_id, key) DO UPDATE SET claim = excluded.claim, expires_at = excluded.expires_at, doc = excluded.doc
           WHERE idempotency_keys.expires_at <= $6::timestamptz`,
          [record.accountId, record.key, record.claim ?? null, record.expiresAt, docOf(record), now],
        );
        if (taken.rowCount === 1) return { claimed: true };
        const existing = await select(record.id, now);
        if (existing) return { claimed: false, record: existing };
        // Released or purged between the two statements: claim again.
      }
    },
    async renew(id, claim, expiresAt) {
      const [accountId, key] = split(id);
      const { rowCount } = await db.query(
        'UPDATE idempotency_keys SET expires_at = $4::timestamptz WHERE account_id = $1 AND key = $2 AND claim = $3',
        [accountId, key, claim, expiresAt],
      );
      return rowCount === 1;
    },
    async complete(record, claim) {
      const { rowCount } = await db.query(
        'UPDATE idempotency_keys SET claim = NULL, expires_at = $4::timestamptz, doc = $5 WHERE account_id = $1 AND key = $2 AND claim = $3',
        [record.accountId, record.key, claim, record.expiresAt, docOf(record)],
      );
      return rowCount === 1;
    },
    async release(id, claim) {
      const [accountId, key] = split(id);
      await db.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND claim = $3', [
        accountId,
        key,
        claim,
      ]);
    },
    get: select,
    async purgeExpired(now) {
      await db.query('DELETE FROM idempotency_keys WHERE expires_at <= $1::timestamptz', [now]);
    },
    async deleteByAccount(accountId) {
      if (hasNul(accountId)) return 0;
      return (await db.query('DELETE FROM idempotency_keys WHERE account_id = $1', [accountId])).rowCount ?? 0;
    },
  };
}
