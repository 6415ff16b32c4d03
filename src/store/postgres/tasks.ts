import { AppError } from '../../domain/errors.js';
import { PERIODS, type Period, periodKey } from '../../domain/periods.js';
import { metadataOf } from '../../domain/tasks.js';
import { finishedItems, type ItemRecord, settledItems, type TaskRecord, type TaskSettlement } from '../records.js';
import type { TaskListQuery, TaskRepo } from '../types.js';
import { type Db, decode, docOf, encode, hasNul, stored } from './sql.js';

/**
 * Tasks: one row each, its items one row each in `task_items` (recording an item writes that
 * row and the task's `updatedAt`, not the whole task). What changes after creation is kept in
 * columns; the rest of the record is the `doc`.
 *
 * Money is kept in step as the file store's indexes keep it: `accounts.reserved` is the sum of
 * the account's pending estimates; `key_spend` holds a key's spend per day, week and month
 * (the estimate while pending, then the charge). Every change to them happens in the
 * transaction that changes the task, with the account row locked.
 */
export const MUTABLE = ['items', 'status', 'cost', 'result', 'errors', 'eventId', 'prepared', 'updatedAt'] as const;

export const TASK_COLUMNS = `t.doc, t.status, t.cost, t.result, t.errors, t.event_id, t.prepared, t.updated_at,
  (SELECT array_agg(i.doc ORDER BY i.idx) FROM task_items i WHERE i.task_id = t.id) AS items`;

export interface TaskRow {
  doc: string;
  status: TaskRecord['status'];
  cost: number;
  result: string | null;
  errors: string | null;
  event_id: string | null;
  prepared: string | null;
  updated_at: string;
  items: string[] | null;
}

export function taskOf(row: TaskRow): TaskRecord {
  const task = JSON.parse(row.doc) as TaskRecord;
  task.status = row.status;
  task.items = (row.items ?? []).map((item) => JSON.parse(item) as ItemRecord);
  task.cost = row.cost;
  if (row.result !== null) task.result = decode(row.result);
  if (row.errors !== null) task.errors = decode(row.errors);
  if (row.event_id !== null) task.eventId = row.event_id;
  if (row.prepared !== null) task.prepared = decode(row.prepared);
  task.updatedAt = row.updated_at;
  return task;
}

/** A metadata filter as containment: each top-level key with a text-comparable value, as the text `[key, String(value)]`. */
export function metadataPairs(request: unknown): string[] {
  const metadata = metadataOf(request);
  if (metadata === null || typeof metadata !== 'object') return [];
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (value !== undefined && value !== null && typeof value !== 'object') pairs.push(JSON.stringify([key, String(value)]));
  }
  return pairs;
}

/** The spend keys (`key_spend.period`) a task created at `createdAt` counts in. */
export const spendPeriods = (apiKeyId: string | null, createdAt: string): string[] => {
  if (apiKeyId === null) return [];
  const millis = Date.parse(createdAt);
  return PERIODS.map((period) => periodKey(period, millis));
};

type Client = Parameters<Parameters<Db['tx']>[0]>[0];

/**
 * The task, its row locked until the transaction ends; undefined when there is none. The lock
 * is taken first and the task read by a second statement: a statement reads other rows (the
 * items) as of when it started, which may be before the lock was granted.
 */
async function lockTask(client: Client, id: string): Promise<TaskRecord | undefined> {
  const locked = await client.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [id]);
  if (locked.rowCount === 0) return undefined;
  const { rows } = await client.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.id = $1`, [id]);
  return taskOf(rows[0]);
}

export function createPgTaskRepo(db: Db): TaskRepo {
  const select = async (where: string, values: unknown[]): Promise<TaskRecord[]> => {
    const { rows } = await db.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t ${where}`, values);
    return rows.map(taskOf);
  };
  return {
    async create(task, { spendingLimit }) {
      const pending = task.status === 'pending';
      const limited = spendingLimit !== undefined && task.apiKeyId !== null;
      await db.tx(async (client) => {
        // The account row lock orders every create (and settle) of the account, in any process.
        const { rows } = await client.query<{ balance: number; reserved: number }>('SELECT balance, reserved FROM accounts WHERE id = $1 FOR UPDATE', [task.accountId]);
        if (rows.length === 0) throw new AppError('UNAUTHORIZED', 'the account no longer exists');
        const { balance, reserved } = rows[0];
        const available = balance - reserved;
        if (available < task.estimate) {
          throw new AppError('INSUFFICIENT_BALANCE', `the estimate is ${task.estimate / 1e6} USD and the available balance is ${available / 1e6} USD`);
        }
        if (limited) {
          // A statement of its own, after the lock: one started before it would read the spend as it was then.
          const spend = await client.query<{ amount: number }>('SELECT amount FROM key_spend WHERE api_key_id = $1 AND period = $2', [
            task.apiKeyId,
            periodKey(spendingLimit.period, Date.parse(task.createdAt)),
          ]);
          if ((spend.rows[0]?.amount ?? 0) + task.estimate > spendingLimit.limit) {
            throw new AppError('SPENDING_LIMIT_EXCEEDED', `this key's spending limit for the current ${spendingLimit.period} is used up`);
          }
        }
        await client.query(
          `WITH task AS (
             INSERT INTO tasks (id, account_id, api_key_id, type, status, estimate, cost, created_at, updated_at, event_id, settled_seq, metadata_pairs, result, errors, prepared, doc)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 <> 'pending' THEN nextval('imgtask_order') END, $11, $12, $13, $14, $15)
           ), items AS (
             INSERT INTO task_items (task_id, idx, status, doc)
             SELECT $1, u.ord - 1, u.status, u.doc FROM unnest($16::text[], $17::text[]) WITH ORDINALITY AS u(status, doc, ord)
           ), account AS (
             UPDATE accounts SET reserved = reserved + $18::bigint WHERE id = $2
           )
           INSERT INTO key_spend (api_key_id, period, amount) SELECT $3, p, $19::bigint FROM unnest($20::text[]) AS p
           ON CONFLICT (api_key_id, period) DO UPDATE SET amount = key_spend.amount + excluded.amount`,
          [
            task.id,
            task.accountId,
            task.apiKeyId,
            task.type,
            task.status,
            task.estimate,
            task.cost,
            task.createdAt,
            task.updatedAt,
            task.eventId ?? null,
            metadataPairs(task.request),
            encode(task.result),
            encode(task.errors),
            encode(task.prepared),
            docOf(task, MUTABLE),
            task.items.map((item) => item.status),
            task.items.map((item) => JSON.stringify(item)),
            pending ? task.estimate : 0,
            pending ? task.estimate : task.cost,
            spendPeriods(task.apiKeyId, task.createdAt),
          ],
        );
      });
      return stored(task);
    },
    async recordItem(id, index, item: ItemRecord, at) {
      if (hasNul(id)) return undefined;
      return db.tx(async (client) => {
        const task = await lockTask(client, id);
        if (task?.status !== 'pending' || task.items[index]?.status !== 'pending') return undefined;
        await client.query(
          `WITH item AS (UPDATE task_items SET status = $3, doc = $4 WHERE task_id = $1 AND idx = $2)
           UPDATE tasks SET updated_at = $5 WHERE id = $1`,
          [id, index, item.status, JSON.stringify(item), at],
        );
        const items = task.items.slice();
        items[index] = stored(item);
        return { ...task, items, updatedAt: at };
      });
    },
    async savePrepared(id, prepared, at) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<TaskRow>(`UPDATE tasks t SET prepared = $2, updated_at = $3 WHERE t.id = $1 AND t.status = 'pending' RETURNING ${TASK_COLUMNS}`, [id, encode(prepared), at]);
      return rows.length === 0 ? undefined : taskOf(rows[0]);
    },
    async settle(s: TaskSettlement) {
      if (hasNul(s.id)) return undefined;
      return db.tx(async (client) => {
        // Task row first, then the account row: the one lock order of every writer.
        const task = await lockTask(client, s.id);
        if (task?.status !== 'pending') return undefined;
        if (s.lastItem && task.items[s.lastItem.index]?.status !== 'pending') return undefined;
        if (s.finished !== undefined && finishedItems(task) !== s.finished) return undefined;
        if (s.cost < 0 || s.cost > task.estimate) throw new Error(`settlement of ${task.id} charges ${s.cost}, outside 0..${task.estimate}`);
        const items = stored(settledItems(task.items, s));
        const settled: TaskRecord = { ...task, items, status: s.status, result: s.result, cost: s.cost, updatedAt: s.at };
        if (s.errors) settled.errors = s.errors;
        // The account row next, by a statement of its own (the parts of one statement take their
        // locks in no set order): creates lock it before the key's spend rows, and so must this.
        await client.query(
          `UPDATE accounts SET reserved = reserved - $2::bigint, balance = balance - $3::bigint, updated_at = CASE WHEN $3::bigint > 0 THEN $4 ELSE updated_at END
           WHERE id = $1`,
          [task.accountId, task.estimate, s.cost, s.at],
        );
        await client.query(
          `WITH item AS (
             UPDATE task_items SET status = $3, doc = $4 WHERE task_id = $1 AND idx = $2
           ), unfinished AS (
             UPDATE task_items SET status = $14, doc = $13 WHERE task_id = $1 AND idx <> $2 AND status = 'pending' AND $13::text IS NOT NULL
           ), task AS (
             UPDATE tasks SET status = $5, result = $6, errors = coalesce($7, errors), cost = $8, updated_at = $9, settled_seq = nextval('imgtask_order') WHERE id = $1
           )
           INSERT INTO key_spend (api_key_id, period, amount) SELECT $10, p, $8::bigint - $11::bigint FROM unnest($12::text[]) AS p
           ON CONFLICT (api_key_id, period) DO UPDATE SET amount = key_spend.amount + excluded.amount`,
          [
            s.id,
            s.lastItem?.index ?? -1,
            s.lastItem?.item.status ?? null,
            s.lastItem ? JSON.stringify(s.lastItem.item) : null,
            s.status,
            encode(s.result),
            encode(s.errors),
            s.cost,
            s.at,
            task.apiKeyId,
            task.estimate,
            spendPeriods(task.apiKeyId, task.createdAt),
            s.unfinishedItem ? JSON.stringify(s.unfinishedItem) : null,
            s.unfinishedItem?.status ?? null,
          ],
        );
        return stored(settled);
      });
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return (await select('WHERE t.id = $1', [id]))[0];
    },
    async listPending() {
      return select(`WHERE t.status = 'pending' ORDER BY t.seq`, []);
    },
    async countPending() {
      const { rows } = await db.query<{ count: number }>(`SELECT count(*) AS count FROM tasks WHERE status = 'pending'`);
      return rows[0].count;
    },
    async list(accountId: string, query: TaskListQuery) {
      const texts = [accountId, query.before, query.createdAfter, query.createdBefore, query.status, query.type];
      if (texts.some((text) => text !== undefined && hasNul(text))) return { tasks: [], more: false };
      const values: unknown[] = [accountId];
      const where = ['t.account_id = $1'];
      const add = (clause: string, value: unknown) => {
        values.push(value);
        where.push(clause.replace('?', `$${values.length}`));
      };
      if (query.before !== undefined) add('t.id < ?', query.before);
      if (query.createdBefore !== undefined) add('t.created_at < ?', query.createdBefore);
      if (query.createdAfter !== undefined) add('t.created_at >= ?', query.createdAfter);
      if (query.status !== undefined) add('t.status = ?', query.status);
      if (query.type !== undefined) add('t.type = ?', query.type);
      const pairs = Object.entries(query.metadata ?? {}).map((pair) => JSON.stringify(pair));
      if (pairs.length > 0) add('t.metadata_pairs @> ?::text[]', pairs);
      values.push(Math.max(0, query.limit + 1));
      const tasks = await select(`WHERE ${where.join(' AND ')} ORDER BY t.id DESC LIMIT $${values.length}`, values);
      const more = tasks.length > query.limit;
      return { tasks: tasks.slice(0, query.limit), more };
    },
    async reserved(accountId) {
      if (hasNul(accountId)) return 0;
      const { rows } = await db.query<{ reserved: number }>('SELECT reserved FROM accounts WHERE id = $1', [accountId]);
      return rows[0]?.reserved ?? 0;
    },
    async keySpend(keyId: string, period: Period, millis: number) {
      if (hasNul(keyId)) return 0;
      const { rows } = await db.query<{ amount: number }>('SELECT amount FROM key_spend WHERE api_key_id = $1 AND period = $2', [keyId, periodKey(period, millis)]);
      return rows[0]?.amount ?? 0;
    },
    async all() {
      return select('ORDER BY t.seq', []);
    },
    async countsByStatus() {
      const { rows } = await db.query<{ status: TaskRecord['status']; count: number }>('SELECT status, count(*) AS count FROM tasks GROUP BY status');
      const count = (status: TaskRecord['status']) => rows.find((row) => row.status === status)?.count ?? 0;
      return { pending: count('pending'), completed: count('completed'), failed: count('failed') };
    },
    async countsByTypeStatus() {
      const { rows } = await db.query<{ type: string; status: TaskRecord['status']; count: number }>('SELECT type, status, count(*) AS count FROM tasks GROUP BY type, status ORDER BY type, status');
      return rows;
    },
    async recent(limit) {
      if (limit <= 0) return [];
      return select('ORDER BY t.id DESC LIMIT $1', [limit]);
    },
  };
}
