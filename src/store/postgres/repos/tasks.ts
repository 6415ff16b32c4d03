import { type Period, periodKey } from '../../../domain/periods.js';
import type { ItemRecord, TaskRecord, TaskSettlement } from '../../records/tasks.js';
import type { TaskListQuery, TaskRepo } from '../../repos/tasks.js';
import { rowsByKey, sharedRead } from '../batched-reads.js';
import type { Db } from '../db.js';
import { hasNul } from '../sql.js';
import { EFFECTIVE_ACCOUNTS, UNAPPLIED_SPEND } from '../unapplied.js';
import { createTaskCreator } from './task-create.js';
import { createItemRecorder, createPreparedSaver, createSettler } from './task-finish.js';
import { createPgRemovalRepo } from './task-removal.js';
import { TASK_COLUMNS, type TaskRow, taskOf } from './task-rows.js';

/**
 * Tasks on PostgreSQL (the rows: task-rows.ts). Creates, items recorded, what prepare worked out
 * and settlements go through group commit (task-create.ts, task-finish.ts): those arriving while
 * a batch is in flight share the next transaction, one round trip each, with set-based
 * statements. Reads of one task, and the pending count, are batched the same way.
 */
export function createPgTaskRepo(db: Db): TaskRepo {
  const create = createTaskCreator(db);
  const recordItem = createItemRecorder(db);
  const settle = createSettler(db);
  const savePrepared = createPreparedSaver(db);
  const getTask = rowsByKey(
    db,
    {
      name: 'imgtask_tasks_by_id',
      text: `SELECT ${TASK_COLUMNS}, t.id FROM tasks t WHERE t.id = ANY($1::text[])`,
      key: 'id',
    },
    taskOf,
  );
  // A bound on the backlog (limits.maxPendingTasks), read once for the creates that ask together.
  const countPending = sharedRead(
    async () =>
      (
        await db.named<{ count: number }>({
          name: 'imgtask_count_pending',
          text: `SELECT count(*) AS count FROM tasks WHERE status = 'pending'`,
        })
      ).rows[0].count,
  );
  const select = async (where: string, values: unknown[]): Promise<TaskRecord[]> => {
    const { rows } = await db.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t ${where}`, values);
    return rows.map(taskOf);
  };
  return {
    ...createPgRemovalRepo(db),
    create: (task, options) => create({ task, ...options }),
    async recordItem(id, index, item: ItemRecord, at, prepared) {
      if (hasNul(id)) return undefined;
      return recordItem({ id, index, item, at, prepared });
    },
    async savePrepared(id, prepared, at) {
      if (hasNul(id)) return undefined;
      return savePrepared({ id, prepared, at });
    },
    async settle(s: TaskSettlement) {
      if (hasNul(s.id)) return undefined;
      return settle(s);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return getTask(id);
    },
    async listPending() {
      return select(`WHERE t.status = 'pending' ORDER BY t.seq`, []);
    },
    countPending,
    async list(accountId: string, query: TaskListQuery) {
      const texts = [
        accountId,
        query.before,
        query.after,
        query.createdAfter,
        query.createdBefore,
        query.status,
        query.type,
        query.apiKeyId,
      ];
      if (texts.some((text) => text !== undefined && hasNul(text))) return { tasks: [], more: false };
      const values: unknown[] = [accountId];
      const where = ['t.account_id = $1'];
      const add = (clause: string, value: unknown) => {
        values.push(value);
        where.push(clause.replace('?', `$${values.length}`));
      };
      if (query.before !== undefined) add('t.id < ?', query.before);
      if (query.after !== undefined) add('t.id > ?', query.after);
      if (query.createdBefore !== undefined) add('t.created_at < ?', query.createdBefore);
      if (query.createdAfter !== undefined) add('t.created_at >= ?', query.createdAfter);
      if (query.status !== undefined) add('t.status = ?', query.status);
      if (query.type !== undefined) add('t.type = ?', query.type);
      if (query.apiKeyId !== undefined) add('t.api_key_id = ?', query.apiKeyId);
      const pairs = Object.entries(query.metadata ?? {}).map((pair) => JSON.stringify(pair));
      if (pairs.length > 0) add('t.metadata_pairs @> ?::text[]', pairs);
      values.push(Math.max(0, query.limit + 1));
      // A newer page (`after`) takes the oldest just after the cursor, then shows them newest first.
      const order = query.after === undefined ? 'DESC' : 'ASC';
      const tasks = await select(`WHERE ${where.join(' AND ')} ORDER BY t.id ${order} LIMIT $${values.length}`, values);
      const more = tasks.length > query.limit;
      const page = tasks.slice(0, query.limit);
      return { tasks: query.after === undefined ? page : page.reverse(), more };
    },
    async reserved(accountId) {
      if (hasNul(accountId)) return 0;
      const { rows } = await db.query<{ reserved: number }>(
        `SELECT reserved FROM ${EFFECTIVE_ACCOUNTS} a WHERE id = $1`,
        [accountId],
      );
      return rows[0]?.reserved ?? 0;
    },
    async keySpend(keyId: string, period: Period, millis: number) {
      if (hasNul(keyId)) return 0;
      const { rows } = await db.query<{ amount: number }>(
        `SELECT coalesce((SELECT amount FROM key_spend WHERE api_key_id = $1 AND period = $2), 0) + ${UNAPPLIED_SPEND} AS amount`,
        [keyId, periodKey(period, millis)],
      );
      return rows[0].amount;
    },
    async all() {
      return select('ORDER BY t.seq', []);
    },
    async countsByStatus() {
      const { rows } = await db.query<{ status: TaskRecord['status']; count: number }>(
        'SELECT status, count(*) AS count FROM tasks GROUP BY status',
      );
      const count = (status: TaskRecord['status']) => rows.find((row) => row.status === status)?.count ?? 0;
      return { pending: count('pending'), completed: count('completed'), failed: count('failed') };
    },
    async countsByTypeStatus() {
      const { rows } = await db.query<{ type: string; status: TaskRecord['status']; count: number }>(
        'SELECT type, status, count(*) AS count FROM tasks GROUP BY type, status ORDER BY type, status',
      );
      return rows;
    },
    async pastDeadline(at, limit) {
      if (limit <= 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM tasks WHERE status = 'pending' AND deadline_at IS NOT NULL AND deadline_at <= $1 ORDER BY deadline_at LIMIT $2`,
        [at, limit],
      );
      return rows.map((row) => row.id);
    },
    async recent(limit) {
      if (limit <= 0) return [];
      return select('ORDER BY t.id DESC LIMIT $1', [limit]);
    },
  };
}
