import { AppError } from '../../domain/errors.js';
import type { ApiKeyRecord } from '../records.js';
import type { ApiKeyRepo } from '../types.js';
import { type Db, docOf, hasNul } from './sql.js';

interface KeyRow {
  doc: string;
  revoked_at: string | null;
}

/** The key as stored: its doc, and `revokedAt` from its column (the one field that changes). */
export const keyOf = (row: KeyRow): ApiKeyRecord => {
  const key = JSON.parse(row.doc) as ApiKeyRecord;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  return key;
};

export function createPgApiKeyRepo(db: Db): ApiKeyRepo {
  return {
    async create(key, { maxLive }) {
      const doc = docOf(key, ['revokedAt']);
      await db.tx(async (client) => {
        // The account row lock makes the count and the insert one step across processes.
        const account = await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [key.accountId]);
        if (account.rowCount === 0) throw new AppError('VALIDATION_ERROR', `no account ${key.accountId}`);
        const { rows } = await client.query<{ live: number }>('SELECT count(*) AS live FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [key.accountId]);
        if (rows[0].live >= maxLive) throw new AppError('API_KEY_LIMIT_REACHED', `an account can hold at most ${maxLive} live API keys`);
        await client.query('INSERT INTO api_keys (id, account_id, hash, revoked_at, doc) VALUES ($1, $2, $3, $4, $5)', [key.id, key.accountId, key.hash, key.revokedAt ?? null, doc]);
      });
      return keyOf({ doc, revoked_at: key.revokedAt ?? null });
    },
    async revoke(id, at) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<KeyRow>('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING doc, revoked_at', [id, at]);
      return rows.length === 0 ? undefined : keyOf(rows[0]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<KeyRow>('SELECT doc, revoked_at FROM api_keys WHERE id = $1', [id]);
      return rows.length === 0 ? undefined : keyOf(rows[0]);
    },
    async getLiveByHash(hash) {
      if (hasNul(hash)) return undefined;
      const { rows } = await db.query<KeyRow>('SELECT doc, revoked_at FROM api_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]);
      return rows.length === 0 ? undefined : keyOf(rows[0]);
    },
    async listLive(accountId) {
      if (hasNul(accountId)) return [];
      const { rows } = await db.query<KeyRow>('SELECT doc, revoked_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY seq', [accountId]);
      return rows.map(keyOf);
    },
  };
}
