import type pg from 'pg';
import { AppError } from '../../../domain/errors.js';
import { type ApiKeyRecord, applyKeyChanges } from '../../records/api-keys.js';
import type { ApiKeyRepo, KeyLimits, RequestWindowRepo } from '../../repos/api-keys.js';
import { rowsByKey } from '../batched-reads.js';
import type { Db } from '../db.js';
import { docOf, hasNul } from '../sql.js';

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

const notExpired = (key: ApiKeyRecord, now: string | undefined) =>
  now === undefined || key.expiresAt === undefined || key.expiresAt > now;

/**
 * Locks the account row (so counting and inserting are one step across processes) and fails
 * when it already holds `maxLive` live keys. Expiry sits in the doc: the account's unrevoked
 * keys are read and counted here (an account holds about 100 of them).
 */
async function checkRoom(
  client: pg.PoolClient,
  accountId: string,
  { maxLive, now }: KeyLimits,
  except?: string,
): Promise<void> {
  const account = await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  if (account.rowCount === 0) throw new AppError('VALIDATION_ERROR', `no account ${accountId}`);
  const { rows } = await client.query<KeyRow & { id: string }>(
    'SELECT id, doc, revoked_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
    [accountId],
  );
  const live = rows.filter((row) => row.id !== except && notExpired(keyOf(row), now)).length;
  if (live >= maxLive)
    throw new AppError('API_KEY_LIMIT_REACHED', `an account can hold at most ${maxLive} live API keys`);
}

const insertKey = (client: pg.PoolClient, key: ApiKeyRecord, doc: string) =>
  client.query('INSERT INTO api_keys (id, account_id, hash, revoked_at, doc) VALUES ($1, $2, $3, $4, $5)', [
    key.id,
    key.accountId,
    key.hash,
    key.revokedAt ?? null,
    doc,
  ]);

/**
 * Reads a key under a row lock, changes it with `change` and writes it back; undefined (nothing written) when it is not
 * there or `change` declines.
 */
async function rewrite(
  client: pg.PoolClient,
  id: string,
  change: (key: ApiKeyRecord) => ApiKeyRecord | undefined,
): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<KeyRow>('SELECT doc, revoked_at FROM api_keys WHERE id = $1 FOR UPDATE', [id]);
  if (rows.length === 0) return undefined;
  const next = change(keyOf(rows[0]));
  if (!next) return undefined;
  await client.query('UPDATE api_keys SET doc = $2, revoked_at = $3 WHERE id = $1', [
    id,
    docOf(next, ['revokedAt']),
    next.revokedAt ?? null,
  ]);
  return next;
}

export function createPgApiKeyRepo(db: Db): ApiKeyRepo {
  // Every request with a key reads it by hash, and a create by id: batched (batched-reads.ts).
  const byId = rowsByKey(
    db,
    {
      name: 'imgtask_keys_by_id',
      text: 'SELECT id, doc, revoked_at FROM api_keys WHERE id = ANY($1::text[])',
      key: 'id',
    },
    keyOf,
  );
  const liveByHash = rowsByKey(
    db,
    {
      name: 'imgtask_live_keys_by_hash',
      text: 'SELECT hash, doc, revoked_at FROM api_keys WHERE hash = ANY($1::text[]) AND revoked_at IS NULL',
      key: 'hash',
    },
    keyOf,
  );
  return {
    async create(key, limits) {
      const doc = docOf(key, ['revokedAt']);
      await db.tx(async (client) => {
        await checkRoom(client, key.accountId, limits);
        await insertKey(client, key, doc);
      });
      return keyOf({ doc, revoked_at: key.revokedAt ?? null });
    },
    async revoke(id, at) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<KeyRow>(
        'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING doc, revoked_at',
        [id, at],
      );
      return rows.length === 0 ? undefined : keyOf(rows[0]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return byId(id);
    },
    async getLiveByHash(hash) {
      if (hasNul(hash)) return undefined;
      return liveByHash(hash);
    },
    async listLive(accountId) {
      if (hasNul(accountId)) return [];
      const { rows } = await db.query<KeyRow>(
        'SELECT doc, revoked_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY seq',
        [accountId],
      );
      return rows.map(keyOf);
    },
    async forgetNames(accountId) {
      if (hasNul(accountId)) return 0;
      const { rows } = await db.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1 ORDER BY seq', [
        accountId,
      ]);
      let forgotten = 0;
      for (const { id } of rows) {
        const changed = await db.tx((client) =>
          rewrite(client, id, (key) => (key.name === undefined ? undefined : applyKeyChanges(key, { name: null }))),
        );
        if (changed) forgotten++;
      }
      return forgotten;
    },
    async update(id, changes) {
      if (hasNul(id)) return undefined;
      return db.tx((client) =>
        rewrite(client, id, (key) => (key.revokedAt ? undefined : applyKeyChanges(key, changes))),
      );
    },
    async touch(id, at) {
      if (hasNul(id)) return;
      await db.tx((client) =>
        rewrite(client, id, (key) =>
          key.lastUsedAt !== undefined && key.lastUsedAt >= at ? undefined : { ...key, lastUsedAt: at },
        ),
      );
    },
    async rotate(id, next, end, limits) {
      if (hasNul(id)) return undefined;
      const doc = docOf(next, ['revokedAt']);
      return db.tx(async (client) => {
        // The account first, then the key: the lock order of create, so the two never deadlock.
        await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [next.accountId]);
        const old = await rewrite(client, id, (key) => {
          if (key.revokedAt || !notExpired(key, limits.now)) return undefined;
          return end.revokedAt ? { ...key, revokedAt: end.revokedAt } : { ...key, expiresAt: end.expiresAt };
        });
        if (!old) return undefined;
        await checkRoom(client, next.accountId, limits, end.revokedAt ? id : undefined);
        await insertKey(client, next, doc);
        return keyOf({ doc, revoked_at: null });
      });
    },
  };
}

/**
 * The shared counters: one upsert per request of a limited key, in an UNLOGGED table (a
 * crash loses at most the current minute's counts). Windows that ended are deleted about
 * once a minute, off the request path.
 */
/** How far behind the newest window a window is kept: two of them (a minute each). */
const PRUNE_BEHIND_MS = 120_000;

export function createPgRequestWindows(db: Db): RequestWindowRepo {
  let prunedBefore = 0;
  return {
    async hit(keyId, windowStart) {
      if (windowStart > prunedBefore) {
        prunedBefore = windowStart;
        // Only windows two minutes back and older: a process whose clock is a little behind may
        // still count in the window before this one (and a prune sent late must not delete it).
        db.query('DELETE FROM key_request_windows WHERE window_start < $1', [windowStart - PRUNE_BEHIND_MS]).catch(
          () => {
            prunedBefore = 0; // tried again on the next hit
          },
        );
      }
      const { rows } = await db.query<{ count: number }>(
        `INSERT INTO key_request_windows (api_key_id, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = key_request_windows.count + 1 RETURNING count`,
        [keyId, windowStart],
      );
      return rows[0].count;
    },
  };
}
