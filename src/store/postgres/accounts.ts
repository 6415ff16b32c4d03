import { AppError } from '../../domain/errors.js';
import type { AccountRecord, CreditRecord } from '../records.js';
import type { AccountRepo } from '../types.js';
import { batchedReads } from './batched-reads.js';
import { type Db, docOf, hasNul, isUniqueViolation, nameKey, stored } from './sql.js';
import { EFFECTIVE_ACCOUNTS } from './unapplied.js';

/**
 * The name is kept only as its JSON text (`name_key`), which holds any string exactly. Balances
 * are read with the settlements not yet applied to them added in (EFFECTIVE_ACCOUNTS).
 */
const COLUMNS = 'id, name_key, balance, weight, created_at, updated_at';
const ACCOUNTS = `${EFFECTIVE_ACCOUNTS} a`;

interface AccountRow {
  id: string;
  name_key: string;
  balance: number;
  weight: number;
  created_at: string;
  updated_at: string;
}

export function accountOf(row: Omit<AccountRow, 'weight'> & { weight?: number }): AccountRecord {
  const account: AccountRecord = { id: row.id, name: JSON.parse(row.name_key) as string, balance: row.balance, createdAt: row.created_at, updatedAt: row.updated_at };
  // A weight of 1 is the default: left out, as the file store leaves it out.
  if (row.weight !== undefined && row.weight !== 1) account.weight = row.weight;
  return account;
}

export function createPgAccountRepo(db: Db): AccountRepo {
  // Every request with a key reads its account: batched (batched-reads.ts).
  const byId = batchedReads(async (ids) => {
    const { rows } = await db.named<AccountRow>({ name: 'imgtask_accounts_by_id', text: `SELECT ${COLUMNS} FROM ${ACCOUNTS} WHERE id = ANY($1::text[])`, values: [ids] });
    return new Map(rows.map((row) => [row.id, row]));
  }, accountOf);
  return {
    async create(account) {
      try {
        await db.query('INSERT INTO accounts (id, name_key, balance, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [
          account.id,
          nameKey(account.name),
          account.balance,
          account.createdAt,
          account.updatedAt,
        ]);
      } catch (err) {
        if (isUniqueViolation(err, 'accounts_name_key_key')) throw new AppError('VALIDATION_ERROR', `account name "${account.name}" is taken`);
        throw err;
      }
      return stored(account);
    },
    async credit(credit: CreditRecord) {
      // One statement: the balance moves and the credit is written together, or neither. What
      // waits to be applied (unapplied.ts) is added in to the answer, as every read does.
      const { rows } = await db.query<AccountRow>(
        `WITH account AS (
           UPDATE accounts SET balance = balance + $3, updated_at = $4 WHERE id = $2 RETURNING ${COLUMNS}
         ), credit AS (
           INSERT INTO credits (id, account_id, doc) SELECT $1, id, $5 FROM account
         ), waiting AS (
           SELECT sum(charged) AS charged, max(at) FILTER (WHERE charged > 0) AS charged_at FROM unapplied_settlements WHERE account_id = $2
         )
         SELECT id, name_key, balance - coalesce(w.charged, 0) AS balance, weight, created_at, greatest(updated_at, w.charged_at) AS updated_at FROM account, waiting w`,
        [credit.id, credit.accountId, credit.amount, credit.createdAt, docOf(credit, [])],
      );
      if (rows.length === 0) throw new AppError('VALIDATION_ERROR', `no account ${credit.accountId}`);
      return accountOf(rows[0]);
    },
    async update(id, changes, at) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<{ id: string }>('UPDATE accounts SET weight = coalesce($2, weight), updated_at = greatest(updated_at, $3) WHERE id = $1 RETURNING id', [
        id,
        changes.weight ?? null,
        at,
      ]);
      if (rows.length === 0) return undefined;
      const read = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM ${ACCOUNTS} WHERE id = $1`, [id]);
      return accountOf(read.rows[0]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return byId(id);
    },
    async getByName(name) {
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM ${ACCOUNTS} WHERE name_key = $1`, [nameKey(name)]);
      return rows.length === 0 ? undefined : accountOf(rows[0]);
    },
    async list() {
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM ${ACCOUNTS} ORDER BY seq`);
      return rows.map(accountOf);
    },
    async credits(accountId) {
      if (hasNul(accountId)) return [];
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM credits WHERE account_id = $1 ORDER BY seq', [accountId]);
      return rows.map((row) => JSON.parse(row.doc) as CreditRecord);
    },
  };
}
