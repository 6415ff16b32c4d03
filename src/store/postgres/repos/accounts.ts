import { AppError } from '../../../domain/errors.js';
import type { AccountChanges, AccountRecord, CreditRecord, RetentionOverrides } from '../../records/accounts.js';
import type { AccountRepo } from '../../repos/accounts.js';
import { rowsByKey } from '../batched-reads.js';
import type { Db } from '../db.js';
import { docOf, hasNul, isUniqueViolation, nameKey, stored } from '../sql.js';
import { EFFECTIVE_ACCOUNTS } from '../unapplied.js';

/**
 * The name is kept only as its JSON text (`name_key`), which holds any string exactly. Balances
 * are read with the settlements not yet applied to them added in (EFFECTIVE_ACCOUNTS).
 */
export const ACCOUNT_COLUMNS =
  'id, name_key, balance, weight, removed_charges, retention, erasing_since, erased_at, created_at, updated_at';
const ACCOUNTS = `${EFFECTIVE_ACCOUNTS} a`;

export interface AccountRow {
  id: string;
  name_key: string;
  balance: number;
  weight: number;
  removed_charges: number;
  retention: string | null;
  erasing_since: string | null;
  erased_at: string | null;
  created_at: string;
  updated_at: string;
}

export function accountOf(row: AccountRow): AccountRecord {
  const account: AccountRecord = {
    id: row.id,
    name: JSON.parse(row.name_key) as string,
    balance: row.balance,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // Defaults (a weight of 1, nothing removed, no overrides) are left out, as the file store leaves them out.
  if (row.weight !== 1) account.weight = row.weight;
  if (row.retention !== null) account.retention = JSON.parse(row.retention) as RetentionOverrides;
  if (row.removed_charges !== 0) account.removedCharges = row.removed_charges;
  if (row.erasing_since !== null) account.erasingSince = row.erasing_since;
  if (row.erased_at !== null) account.erasedAt = row.erased_at;
  return account;
}

/**
 * Sets what `changes` names: an absent field is kept; `erasingSince: null` clears it; `retention` replaces the
 * overrides whole.
 */
const UPDATE = `UPDATE accounts SET weight = coalesce($2, weight),
    retention = CASE WHEN $3::boolean THEN $4 ELSE retention END,
    name_key = coalesce($5, name_key),
    erasing_since = CASE WHEN $6::boolean THEN $7 ELSE erasing_since END,
    erased_at = coalesce($8, erased_at),
    updated_at = greatest(updated_at, $9)
  WHERE id = $1 RETURNING id`;

/** Overrides as kept: none set (an empty object) is none kept, so the account follows the config in everything. */
export const retentionText = (retention: RetentionOverrides | undefined): string | null =>
  retention !== undefined && Object.values(retention).some((value) => value !== undefined)
    ? JSON.stringify(retention)
    : null;

const nameTaken = (err: unknown, name: string): unknown =>
  isUniqueViolation(err, 'accounts_name_key_key')
    ? new AppError('VALIDATION_ERROR', `account name "${name}" is taken`)
    : err;

export function createPgAccountRepo(db: Db): AccountRepo {
  // Every request with a key reads its account: batched (batched-reads.ts).
  const byId = rowsByKey(
    db,
    {
      name: 'imgtask_accounts_by_id',
      text: `SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNTS} WHERE id = ANY($1::text[])`,
      key: 'id',
    },
    accountOf,
  );
  return {
    async create(account) {
      try {
        await db.query(
          'INSERT INTO accounts (id, name_key, balance, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)',
          [account.id, nameKey(account.name), account.balance, account.createdAt, account.updatedAt],
        );
      } catch (err) {
        throw nameTaken(err, account.name);
      }
      return stored(account);
    },
    async credit(credit: CreditRecord) {
      // One statement: the balance moves and the credit is written together, or neither. What
      // waits to be applied (unapplied.ts) is added in to the answer, as every read does.
      const { rows } = await db.query<AccountRow>(
        `WITH account AS (
           UPDATE accounts SET balance = balance + $3, updated_at = $4 WHERE id = $2 RETURNING ${ACCOUNT_COLUMNS}
         ), credit AS (
           INSERT INTO credits (id, account_id, doc) SELECT $1, id, $5 FROM account
         ), waiting AS (
           SELECT sum(charged) AS charged, max(at) FILTER (WHERE charged > 0) AS charged_at FROM unapplied_settlements WHERE account_id = $2
         )
         SELECT id, name_key, balance - coalesce(w.charged, 0) AS balance, weight, removed_charges, retention, erasing_since, erased_at, created_at,
           greatest(updated_at, w.charged_at) AS updated_at FROM account, waiting w`,
        [credit.id, credit.accountId, credit.amount, credit.createdAt, docOf(credit, [])],
      );
      if (rows.length === 0) throw new AppError('VALIDATION_ERROR', `no account ${credit.accountId}`);
      return accountOf(rows[0]);
    },
    async update(id, changes: AccountChanges, at) {
      if (hasNul(id)) return undefined;
      const values = [
        id,
        changes.weight ?? null,
        changes.retention !== undefined,
        retentionText(changes.retention),
        changes.name === undefined ? null : nameKey(changes.name),
        changes.erasingSince !== undefined,
        changes.erasingSince ?? null,
        changes.erasedAt ?? null,
        at,
      ];
      let updated: number;
      try {
        updated = (await db.query(UPDATE, values)).rowCount ?? 0;
      } catch (err) {
        throw nameTaken(err, changes.name ?? '');
      }
      if (updated === 0) return undefined;
      const read = await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNTS} WHERE id = $1`, [id]);
      return accountOf(read.rows[0]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return byId(id);
    },
    async getByName(name) {
      const { rows } = await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNTS} WHERE name_key = $1`, [
        nameKey(name),
      ]);
      return rows.length === 0 ? undefined : accountOf(rows[0]);
    },
    async list() {
      const { rows } = await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNTS} ORDER BY seq`);
      return rows.map(accountOf);
    },
    async credits(accountId) {
      if (hasNul(accountId)) return [];
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM credits WHERE account_id = $1 ORDER BY seq', [
        accountId,
      ]);
      return rows.map((row) => JSON.parse(row.doc) as CreditRecord);
    },
  };
}
