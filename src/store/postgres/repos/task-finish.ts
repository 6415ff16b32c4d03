import {
  finishedItems,
  type ItemRecord,
  NO_EVENT,
  preparedOnce,
  settledTask,
  type TaskRecord,
  type TaskSettlement,
} from '../../records/tasks.js';
import { batchedWrites } from '../batch-errors.js';
import type { Db, Statement } from '../db.js';
import type { Outcome } from '../group-commit.js';
import { encode, stored } from '../sql.js';
import { FOLD_FREE } from '../unapplied.js';
import { fileBytes, PENDING, TASK_COLUMNS, type TaskRow, taskOf } from './task-rows.js';

/**
 * Locks the batch's tasks in id order, as every writer of several tasks does, so two batches
 * never wait for each other in a circle. (A settlement then takes the rows of its accounts only
 * when they are free: FOLD_FREE.)
 */
const LOCK_TASKS = 'SELECT 1 FROM tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';

/**
 * Items finished while others of their task run, recorded in one statement after LOCK_TASKS:
 * each only while its task and the item are still pending. Answers each task as it was before
 * (the statement's own reads), and whether its item was recorded.
 */
const RECORD_ITEMS = `WITH r AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS r(id, idx, status, doc, at, prepared, bytes)
), ok AS (
  SELECT r.* FROM r JOIN tasks t ON t.id = r.id AND t.id = ANY($1::text[]) AND ${PENDING}
  JOIN task_items i ON i.task_id = r.id AND i.task_id = ANY($1::text[]) AND i.idx = r.idx AND i.status = 'pending'
), item AS (
  UPDATE task_items i SET status = ok.status, doc = ok.doc, bytes = ok.bytes FROM ok WHERE i.task_id = ok.id AND i.task_id = ANY($1::text[]) AND i.idx = ok.idx
), task AS (
  UPDATE tasks t SET updated_at = ok.at, prepared = coalesce(t.prepared, ok.prepared) FROM ok WHERE t.id = ok.id AND t.id = ANY($1::text[])
)
SELECT ${TASK_COLUMNS}, t.id, t.id IN (SELECT id FROM ok) AS done FROM tasks t WHERE t.id = ANY($1::text[])`;

/**
 * Settlements, in one statement after LOCK_TASKS: each only while its task is pending (and its
 * last item, and as many items finished as it was worked out from), charging at most the
 * estimate. The last items and those left unfinished and the tasks are written; the money (the
 * estimate released, the charge, for the spend periods the task's create counted in: its
 * created_at in UTC, periods.ts in SQL) waits in unapplied_settlements for a writer holding the
 * account row (unapplied.ts), so settlements never queue behind creates. Answers each task as it
 * was before, and whether it was settled.
 */
const SETTLE = `WITH s AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::int[], $13::text[], $14::boolean[],
                       $15::bigint[], $16::bigint[])
    AS s(id, last_idx, last_status, last_doc, status, result, errors, cost, at, unfinished_doc, unfinished_status, finished, prepared, no_event, last_bytes, unfinished_bytes)
), ok AS (
  SELECT s.*, t.account_id, t.api_key_id, t.estimate, t.created_at FROM s JOIN tasks t ON t.id = s.id AND t.id = ANY($1::text[])
  WHERE ${PENDING}
    AND (s.last_idx < 0 OR EXISTS (SELECT 1 FROM task_items i WHERE i.task_id = s.id AND i.idx = s.last_idx AND i.status = 'pending'))
    AND (s.finished IS NULL OR s.finished = (SELECT count(*) FROM task_items i WHERE i.task_id = s.id AND i.status <> 'pending'))
    AND s.cost BETWEEN 0 AND t.estimate
), item AS (
  UPDATE task_items i SET status = ok.last_status, doc = ok.last_doc, bytes = ok.last_bytes FROM ok WHERE i.task_id = ok.id AND i.task_id = ANY($1::text[]) AND i.idx = ok.last_idx
), unfinished AS (
  UPDATE task_items i SET status = ok.unfinished_status, doc = ok.unfinished_doc, bytes = ok.unfinished_bytes FROM ok
  WHERE i.task_id = ok.id AND i.task_id = ANY($1::text[]) AND i.idx <> ok.last_idx AND i.status = 'pending' AND ok.unfinished_doc IS NOT NULL
), task AS (
  UPDATE tasks t SET status = ok.status, result = ok.result, errors = coalesce(ok.errors, t.errors), cost = ok.cost, updated_at = ok.at, settled_seq = nextval('imgtask_order'),
    prepared = coalesce(t.prepared, ok.prepared), event_id = CASE WHEN ok.no_event THEN coalesce(t.event_id, '${NO_EVENT}') ELSE t.event_id END
  FROM ok WHERE t.id = ok.id AND t.id = ANY($1::text[])
), money AS (
  INSERT INTO unapplied_settlements (task_id, account_id, api_key_id, periods, released, charged, at)
  SELECT ok.id, ok.account_id, ok.api_key_id,
         CASE WHEN ok.api_key_id IS NULL THEN '{}'::text[]
              ELSE ARRAY['d:' || to_char(c.at, 'YYYY-MM-DD'), 'w:' || to_char(date_trunc('week', c.at), 'YYYY-MM-DD'), 'm:' || to_char(c.at, 'YYYY-MM')] END,
         ok.estimate, ok.cost, ok.at
  FROM ok CROSS JOIN LATERAL (SELECT ok.created_at::timestamptz AT TIME ZONE 'UTC' AS at) c
)
SELECT ${TASK_COLUMNS}, t.id, t.id IN (SELECT id FROM ok) AS done FROM tasks t WHERE t.id = ANY($1::text[])`;

/**
 * What prepare worked out, saved in one statement after LOCK_TASKS: each only while its task is pending. Answers each
 * task as it now is.
 */
const SAVE_PREPARED = `UPDATE tasks t SET prepared = u.prepared, updated_at = u.at
FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, prepared, at)
WHERE t.id = u.id AND t.id = ANY($1::text[]) AND ${PENDING} RETURNING ${TASK_COLUMNS}, t.id, true AS done`;

interface BeforeRow extends TaskRow {
  id: string;
  done: boolean;
}

export interface ItemWrite {
  id: string;
  index: number;
  item: ItemRecord;
  at: string;
  /** What prepare worked out, kept when the task has none yet. */
  prepared?: unknown;
}

/**
 * Runs a task writer's batches: the statements of a batch, then each member's answer from the
 * task as it was before and whether its write was made. A statement error one member may have
 * caused runs each alone.
 */
function taskBatches<I extends { id: string }, O>(
  db: Db,
  statements: (members: readonly I[]) => Statement[],
  answer: (member: I, before: TaskRecord | undefined, done: boolean) => O,
) {
  const once = async (members: readonly I[]): Promise<Outcome<O>[]> => {
    const results = await db.batch(statements(members));
    // The statement after LOCK_TASKS answers.
    const rows = new Map((results[1].rows as BeforeRow[]).map((row) => [row.id, row]));
    return members.map((member) => {
      const row = rows.get(member.id);
      try {
        return { ok: true, value: answer(member, row && taskOf(row), row?.done ?? false) };
      } catch (error) {
        return { ok: false, error };
      }
    });
  };
  // One write per task in a batch: the next waits for the next batch, and sees this one's.
  return batchedWrites(once, (member) => member.id);
}

/**
 * Records finished items through group commit; each answers the task with its item, or undefined when the task or item
 * was no longer pending.
 */
export function createItemRecorder(db: Db): (write: ItemWrite) => Promise<TaskRecord | undefined> {
  return taskBatches<ItemWrite, TaskRecord | undefined>(
    db,
    (members) => [
      { name: 'imgtask_lock_tasks', text: LOCK_TASKS, values: [members.map((m) => m.id)] },
      {
        name: 'imgtask_record_items',
        text: RECORD_ITEMS,
        values: [
          members.map((m) => m.id),
          members.map((m) => m.index),
          members.map((m) => m.item.status),
          members.map((m) => JSON.stringify(m.item)),
          members.map((m) => m.at),
          members.map((m) => encode(m.prepared)),
          members.map((m) => fileBytes(m.item)),
        ],
      },
    ],
    (member, before, done) => {
      if (!before || !done) return undefined;
      const items = before.items.slice();
      items[member.index] = stored(member.item);
      return { ...before, items, updatedAt: member.at, ...preparedOnce(before, member.prepared) };
    },
  );
}

/**
 * Settles through group commit; each answers the settled task, or undefined when it was no longer pending (or an item
 * finished since it was worked out).
 */
export function createSettler(db: Db): (settlement: TaskSettlement) => Promise<TaskRecord | undefined> {
  return taskBatches<TaskSettlement, TaskRecord | undefined>(
    db,
    (members) => {
      const ids = members.map((s) => s.id);
      return [
        { name: 'imgtask_lock_tasks', text: LOCK_TASKS, values: [ids] },
        {
          name: 'imgtask_settle',
          text: SETTLE,
          values: [
            ids,
            members.map((s) => s.lastItem?.index ?? -1),
            members.map((s) => s.lastItem?.item.status ?? null),
            members.map((s) => (s.lastItem ? JSON.stringify(s.lastItem.item) : null)),
            members.map((s) => s.status),
            members.map((s) => encode(s.result)),
            members.map((s) => encode(s.errors)),
            members.map((s) => s.cost),
            members.map((s) => s.at),
            members.map((s) => (s.unfinishedItem ? JSON.stringify(s.unfinishedItem) : null)),
            members.map((s) => s.unfinishedItem?.status ?? null),
            members.map((s) => s.finished ?? null),
            members.map((s) => encode(s.prepared)),
            members.map((s) => s.noEvent === true),
            members.map((s) => (s.lastItem ? fileBytes(s.lastItem.item) : 0)),
            members.map((s) => (s.unfinishedItem ? fileBytes(s.unfinishedItem) : 0)),
          ],
        },
        { name: 'imgtask_fold_free', text: FOLD_FREE, values: [ids] },
      ];
    },
    (s, task, done) => {
      if (task?.status !== 'pending') return undefined;
      if (!done) {
        // Refused for a reason of its own: only a charge outside the estimate is a mistake to report.
        const applies =
          (!s.lastItem || task.items[s.lastItem.index]?.status === 'pending') &&
          (s.finished === undefined || finishedItems(task) === s.finished);
        if (applies && (s.cost < 0 || s.cost > task.estimate))
          throw new Error(`settlement of ${task.id} charges ${s.cost}, outside 0..${task.estimate}`);
        return undefined;
      }
      return stored(settledTask(task, s));
    },
  );
}

/**
 * Saves what prepare worked out through group commit; each answers the task as saved, or undefined when it was no
 * longer pending.
 */
export function createPreparedSaver(
  db: Db,
): (write: { id: string; prepared: unknown; at: string }) => Promise<TaskRecord | undefined> {
  return taskBatches<{ id: string; prepared: unknown; at: string }, TaskRecord | undefined>(
    db,
    (members) => [
      { name: 'imgtask_lock_tasks', text: LOCK_TASKS, values: [members.map((m) => m.id)] },
      {
        name: 'imgtask_save_prepared',
        text: SAVE_PREPARED,
        values: [members.map((m) => m.id), members.map((m) => encode(m.prepared)), members.map((m) => m.at)],
      },
    ],
    (_member, saved, done) => (done ? saved : undefined),
  );
}
