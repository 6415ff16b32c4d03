import type { ConsoleSessionRecord } from '../../records/console-sessions.js';
import type { ConsoleSessionRepo } from '../../repos/console-sessions.js';
import type { Db } from '../db.js';
import { hasNul } from '../sql.js';

type Row = { doc: string; used_at: string | null; revoked_at: string | null };

/** The doc without the times that live in their own columns (a use or a revoke moves only those). */
const docOf = ({ usedAt: _used, revokedAt: _revoked, ...rest }: ConsoleSessionRecord): string => JSON.stringify(rest);

const read = (row: Row): ConsoleSessionRecord => {
  const record = JSON.parse(row.doc) as ConsoleSessionRecord;
  if (row.used_at !== null) record.usedAt = row.used_at;
  if (row.revoked_at !== null) record.revokedAt = row.revoked_at;
  return record;
};

const COLUMNS = 'doc, used_at, revoked_at';

/**
 * Console links and sessions in `console_sessions`, shared by every process on the database; `account_id` null for the
 * operator's.
 */
export function createPgConsoleSessionRepo(db: Db): ConsoleSessionRepo {
  return {
    async put(record) {
      await db.query(
        `INSERT INTO console_sessions (id, hash, kind, expires_at, used_at, revoked_at, doc, account_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, used_at = excluded.used_at, revoked_at = excluded.revoked_at, doc = excluded.doc,
           account_id = excluded.account_id`,
        [
          record.id,
          record.hash,
          record.kind,
          record.expiresAt,
          record.usedAt ?? null,
          record.revokedAt ?? null,
          docOf(record),
          record.accountId,
        ],
      );
    },
    async consume(hash, now) {
      if (hasNul(hash)) return undefined;
      const { rows } = await db.query<Row>(
        `UPDATE console_sessions SET used_at = $2 WHERE hash = $1 AND kind = 'link' AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING ${COLUMNS}`,
        [hash, now],
      );
      return rows[0] ? read(rows[0]) : undefined;
    },
    async getByHash(hash) {
      if (hasNul(hash)) return undefined;
      const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM console_sessions WHERE hash = $1`, [hash]);
      return rows[0] ? read(rows[0]) : undefined;
    },
    async list(now) {
      const { rows } = await db.query<Row>(
        `SELECT ${COLUMNS} FROM console_sessions WHERE expires_at > $1 ORDER BY seq`,
        [now],
      );
      return rows.map(read);
    },
    async revoke(id, at) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<Row>(
        `UPDATE console_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
        [id, at],
      );
      return rows[0] ? read(rows[0]) : undefined;
    },
    async purgeExpired(now) {
      return (await db.query('DELETE FROM console_sessions WHERE expires_at <= $1', [now])).rowCount ?? 0;
    },
    async deleteByAccount(accountId) {
      if (hasNul(accountId)) return 0;
      return (await db.query('DELETE FROM console_sessions WHERE account_id = $1', [accountId])).rowCount ?? 0;
    },
  };
}
