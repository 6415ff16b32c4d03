import { scrubbedTask, type TaskRecord } from '../../records/tasks.js';
import type { TaskRepo } from '../../repos/tasks.js';
import type { Db } from '../db.js';
import { docOf, encode, hasNul, stored } from '../sql.js';
import { MUTABLE, TASK_COLUMNS, type TaskRow, taskOf } from './task-rows.js';

/**
 * What removes a task's data and, later, its record (docs/data-lifecycle.md). A scrub rewrites
 * every column that held what a client wrote or an engine made (the doc with the request, the
 * metadata pairs, the result, the errors' messages, what prepare worked out, the items' docs) in
 * one transaction; a purge deletes the rows and moves their charges to the account's
 * `removed_charges`, so credits − charges − removed charges still equals the balance.
 */
type RemovalRepo = Pick<TaskRepo, 'removeData' | 'withDataSettledBefore' | 'settledBefore' | 'purge' | 'storedBytes'>;

/**
 * A settled task's settlement time is its updated_at (nothing changes it after), compared in byte order; ties by id, as
 * the file store orders them.
 */
const SETTLED_BEFORE = `t.account_id = $1 AND t.status <> 'pending' AND t.updated_at COLLATE "C" < $2`;
const OLDEST_FIRST = 'ORDER BY t.updated_at COLLATE "C", t.id LIMIT $3';

/**
 * Locks the tasks in id order, as every writer of several tasks does (task-finish.ts): only those a purge may delete.
 */
const LOCK_PURGEABLE = `SELECT 1 FROM tasks WHERE id = ANY($1::text[]) AND status <> 'pending' AND data_removed_at IS NOT NULL ORDER BY id FOR UPDATE`;

/** After LOCK_PURGEABLE: the tasks and their items deleted, their charges added to their accounts' removed charges. */
const PURGE = `WITH gone AS (
  DELETE FROM tasks t WHERE t.id = ANY($1::text[]) AND t.status <> 'pending' AND t.data_removed_at IS NOT NULL RETURNING t.id, t.account_id, t.cost
), items AS (
  DELETE FROM task_items i WHERE i.task_id IN (SELECT id FROM gone)
), charges AS (
  UPDATE accounts a SET removed_charges = a.removed_charges + s.total
  FROM (SELECT account_id, sum(cost) AS total FROM gone GROUP BY account_id) s WHERE a.id = s.account_id
)
SELECT count(*) AS purged FROM gone`;

export function createPgRemovalRepo(db: Db): RemovalRepo {
  return {
    async removeData(id, at) {
      if (hasNul(id)) return undefined;
      return db.tx(async (client): Promise<TaskRecord | undefined> => {
        // Locked first, then read by a statement of its own: it sees the task and its items as they are now.
        if ((await client.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [id])).rowCount === 0) return undefined;
        const task = taskOf(
          (await client.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.id = $1`, [id])).rows[0],
        );
        if (task.status === 'pending' || task.dataRemovedAt !== undefined) return task;
        const scrubbed = scrubbedTask(task, at);
        await client.query(
          `UPDATE tasks SET doc = $2, metadata_pairs = '{}', result = $3, errors = $4, prepared = $5, data_removed_at = $6 WHERE id = $1`,
          [
            id,
            docOf(scrubbed, MUTABLE),
            encode(scrubbed.result),
            encode(scrubbed.errors),
            encode(scrubbed.prepared),
            scrubbed.dataRemovedAt,
          ],
        );
        await client.query(
          'UPDATE task_items i SET doc = u.doc, bytes = 0 FROM unnest($2::text[]) WITH ORDINALITY AS u(doc, ord) WHERE i.task_id = $1 AND i.idx = u.ord - 1',
          [id, scrubbed.items.map((item) => JSON.stringify(item))],
        );
        return stored(scrubbed);
      });
    },
    async withDataSettledBefore(accountId, before, limit) {
      if (limit <= 0 || hasNul(accountId) || hasNul(before)) return [];
      const { rows } = await db.query<TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM tasks t WHERE ${SETTLED_BEFORE} AND t.data_removed_at IS NULL ${OLDEST_FIRST}`,
        [accountId, before, limit],
      );
      return rows.map(taskOf);
    },
    async settledBefore(accountId, before, limit) {
      if (limit <= 0 || hasNul(accountId) || hasNul(before)) return [];
      const { rows } = await db.query<{ id: string }>(
        `SELECT t.id FROM tasks t WHERE ${SETTLED_BEFORE} ${OLDEST_FIRST}`,
        [accountId, before, limit],
      );
      return rows.map((row) => row.id);
    },
    async purge(ids) {
      const wanted = [...new Set(ids)].filter((id) => !hasNul(id));
      if (wanted.length === 0) return 0;
      // On a pooled connection of its own, not the pipelines creates and settlements share: a sweep's batch waits for
      // no one there.
      return db.tx(async (client) => {
        await client.query(LOCK_PURGEABLE, [wanted]);
        return (await client.query<{ purged: number }>(PURGE, [wanted])).rows[0].purged;
      });
    },
    async storedBytes(accountId) {
      if (hasNul(accountId)) return 0;
      const { rows } = await db.query<{ bytes: number }>(
        'SELECT coalesce(sum(i.bytes), 0) AS bytes FROM tasks t JOIN task_items i ON i.task_id = t.id WHERE t.account_id = $1 AND t.data_removed_at IS NULL',
        [accountId],
      );
      return rows[0].bytes;
    },
  };
}
