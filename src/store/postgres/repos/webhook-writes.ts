import { NO_EVENT } from '../../records/tasks.js';
import type { DeliveryAttempt, DeliveryRecord, EventRecord } from '../../records/webhooks.js';
import { batchedWrites } from '../batch-errors.js';
import type { Db } from '../db.js';
import type { Outcome } from '../group-commit.js';
import { docOf } from '../sql.js';
import { DELIVERY_COLUMNS, DELIVERY_MUTABLE, type DeliveryRow, deliveryOf } from './delivery-rows.js';

/** Locks the tasks of the batch's events in id order, as every batched writer of tasks does (task-finish.ts). */
const LOCK_TASKS = 'SELECT 1 FROM tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';

/**
 * Events with their deliveries, in one statement after LOCK_TASKS. Several processes may record
 * a settled task's event at once (one settling it, another recovering events at its start): the
 * task row decides, the first event recorded for it stays. An event recorded before is left as it
 * is; a new one gets its deliveries (the pending ones take the next places in the due order) and
 * marks its task.
 */
const RECORD_EVENTS = `WITH e AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $12::text[]) WITH ORDINALITY AS e(id, task_id, doc, account_id, ord)
), fresh AS (
  SELECT e.* FROM e LEFT JOIN LATERAL (SELECT t.event_id FROM tasks t WHERE t.id = e.task_id) t ON true WHERE t.event_id IS NULL OR t.event_id = e.id
), ins AS (
  INSERT INTO events (id, task_id, doc, account_id) SELECT id, task_id, doc, account_id FROM fresh ORDER BY ord ON CONFLICT (id) DO NOTHING RETURNING id
), delivered AS (
  INSERT INTO deliveries (id, event_id, pending_seq, webhook_id, status, next_attempt_at, updated_at, attempts, doc, account_id)
  SELECT d.id, d.event_id, CASE WHEN d.status = 'pending' THEN nextval('imgtask_order') END, d.webhook_id, d.status, d.next_attempt_at, d.updated_at, d.attempts, d.doc, d.account_id
  FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $13::text[]) WITH ORDINALITY
    AS d(event_id, id, webhook_id, status, next_attempt_at, updated_at, attempts, doc, account_id, ord)
  WHERE d.event_id IN (SELECT id FROM ins) ORDER BY d.ord
), mark AS (
  UPDATE tasks t SET event_id = e.id FROM e WHERE t.id = e.task_id AND t.id = ANY($2::text[]) AND e.id IN (SELECT id FROM ins)
)
SELECT count(*) AS recorded FROM ins`;

/** Settled tasks whose event no endpoint wanted, marked in one statement (rows locked in id order). */
const MARK_NO_EVENT = `UPDATE tasks SET event_id = '${NO_EVENT}'
  WHERE id IN (SELECT id FROM tasks WHERE id = ANY($1::text[]) AND event_id IS NULL ORDER BY id FOR UPDATE)`;

/**
 * Delivery attempts, in one statement: each appended to its delivery's attempts, with its status and when it is due
 * next.
 */
const RECORD_ATTEMPTS = `UPDATE deliveries d SET
  attempts = CASE WHEN d.attempts = '[]' THEN '[' || u.attempt || ']' ELSE left(d.attempts, -1) || ',' || u.attempt || ']' END,
  pending_seq = CASE WHEN d.status <> 'pending' AND u.status = 'pending' THEN nextval('imgtask_order') ELSE d.pending_seq END,
  status = u.status, next_attempt_at = u.next_attempt_at, updated_at = u.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(id, attempt, status, next_attempt_at, at)
WHERE d.id = u.id RETURNING d.id, ${DELIVERY_COLUMNS.split(', ')
  .map((column) => `d.${column}`)
  .join(', ')}`;

const done = <O>(value: O): Outcome<O> => ({ ok: true, value });

/** Records events with all their deliveries, and marks their tasks (see RECORD_EVENTS). */
export function createEventRecorder(db: Db) {
  return batchedWrites<{ event: EventRecord; deliveries: readonly DeliveryRecord[] }, void>(
    async (members) => {
      const events = members.map((m) => m.event);
      const list = members.flatMap((m) => m.deliveries.map((delivery) => ({ eventId: m.event.id, delivery })));
      const taskIds = events.flatMap((event) => (event.taskId === null ? [] : [event.taskId]));
      await db.batch([
        { name: 'imgtask_lock_event_tasks', text: LOCK_TASKS, values: [taskIds] },
        {
          name: 'imgtask_record_events',
          text: RECORD_EVENTS,
          values: [
            events.map((e) => e.id),
            events.map((e) => e.taskId),
            events.map((e) => docOf(e, [])),
            list.map((d) => d.eventId),
            list.map((d) => d.delivery.id),
            list.map((d) => d.delivery.webhookId),
            list.map((d) => d.delivery.status),
            list.map((d) => d.delivery.nextAttemptAt),
            list.map((d) => d.delivery.updatedAt),
            list.map((d) => JSON.stringify(d.delivery.attempts)),
            list.map((d) => docOf(d.delivery, DELIVERY_MUTABLE)),
            events.map((e) => e.accountId),
            list.map((d) => d.delivery.accountId),
          ],
        },
      ]);
      return members.map(() => done(undefined));
    },
    // One event per task in a batch: the task row decides between them, one statement at a time.
    (member) => member.event.taskId ?? member.event.id,
  );
}

/** Marks settled tasks whose event no endpoint wanted (only those not marked or recorded yet). */
export function createNoEventMarker(db: Db) {
  return batchedWrites<string, void>(async (taskIds) => {
    await db.named({ name: 'imgtask_mark_no_event', text: MARK_NO_EVENT, values: [[...new Set(taskIds)]] });
    return taskIds.map(() => done(undefined));
  });
}

/** Records delivery attempts; each answers its delivery as it now stands. */
export function createAttemptRecorder(db: Db) {
  return batchedWrites<
    { id: string; attempt: DeliveryAttempt; status: DeliveryRecord['status']; nextAttemptAt: string | null },
    DeliveryRecord
  >(
    async (members) => {
      const { rows } = await db.query<DeliveryRow & { id: string }>(RECORD_ATTEMPTS, [
        members.map((m) => m.id),
        members.map((m) => JSON.stringify(m.attempt)),
        members.map((m) => m.status),
        members.map((m) => m.nextAttemptAt),
        members.map((m) => m.attempt.at),
      ]);
      const byId = new Map(rows.map((row) => [row.id, deliveryOf(row)]));
      return members.map((m) => {
        const delivery = byId.get(m.id);
        return delivery ? done(delivery) : { ok: false, error: new Error(`no delivery ${m.id}`) };
      });
    },
    // One attempt per delivery in a batch: each appends to what the one before left.
    (member) => member.id,
  );
}
