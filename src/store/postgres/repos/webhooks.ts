import {
  applyWebhookChanges,
  applyWebhookHealth,
  type DeliveryRecord,
  type EventRecord,
  type WebhookRecord,
} from '../../records/webhooks.js';
import type { WebhookRepo } from '../../repos/webhooks.js';
import { batchedReads } from '../batched-reads.js';
import type { Db } from '../db.js';
import { docOf, hasNul, stored } from '../sql.js';
import { DELIVERY_COLUMNS, type DeliveryRow, deliveryOf } from './delivery-rows.js';
import { createPgEventRemoval } from './event-removal.js';
import { TASK_COLUMNS, taskOf } from './task-rows.js';
import { createAttemptRecorder, createEventRecorder, createNoEventMarker } from './webhook-writes.js';

const webhooksOf = (rows: { doc: string }[]): WebhookRecord[] =>
  rows.map((row) => JSON.parse(row.doc) as WebhookRecord);

/**
 * Reads a webhook under a row lock, changes it with `change` and writes it back; undefined (nothing written) when it is
 * gone or `change` declines.
 */
async function rewrite(
  db: Db,
  id: string,
  change: (webhook: WebhookRecord) => WebhookRecord | undefined,
): Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined> {
  if (hasNul(id)) return undefined;
  return db.tx(async (client) => {
    const [before] = webhooksOf(
      (await client.query<{ doc: string }>('SELECT doc FROM webhooks WHERE id = $1 FOR UPDATE', [id])).rows,
    );
    const after = before && change(before);
    if (!after) return undefined;
    await client.query('UPDATE webhooks SET doc = $2 WHERE id = $1', [id, docOf(after, [])]);
    return { before, after: stored(after) };
  });
}

/**
 * Webhooks, events and deliveries (the deliveries' rows: delivery-rows.ts). Events recorded,
 * tasks marked as needing none and delivery attempts go through group commit (webhook-writes.ts).
 */
export function createPgWebhookRepo(db: Db): WebhookRepo {
  const recordEvent = createEventRecorder(db);
  const markNoEvent = createNoEventMarker(db);
  const recordAttempt = createAttemptRecorder(db);
  // Each settlement reads its account's webhooks: batched (batched-reads.ts).
  const ofAccount = batchedReads(async (accountIds) => {
    const { rows } = await db.named<{ account_id: string; doc: string }>({
      name: 'imgtask_webhooks_of_accounts',
      text: 'SELECT account_id, doc FROM webhooks WHERE account_id = ANY($1::text[]) ORDER BY seq',
      values: [accountIds],
    });
    const found = new Map<string, { doc: string }[]>(accountIds.map((id) => [id, []]));
    for (const row of rows) found.get(row.account_id)?.push(row);
    return found;
  }, webhooksOf);
  const deliveries = async (sql: string, values: unknown[]): Promise<DeliveryRecord[]> =>
    (await db.query<DeliveryRow>(sql, values)).rows.map(deliveryOf);
  return {
    ...createPgEventRemoval(db),
    async put(webhook) {
      await db.query(
        'INSERT INTO webhooks (id, account_id, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, doc = excluded.doc',
        [webhook.id, webhook.accountId, docOf(webhook, [])],
      );
      return stored(webhook);
    },
    async update(id, changes) {
      return (await rewrite(db, id, (webhook) => applyWebhookChanges(webhook, changes)))?.after;
    },
    async recordHealth(id, health) {
      const changed = await rewrite(db, id, (webhook) => applyWebhookHealth(webhook, health));
      return changed?.before.enabled && !changed.after.enabled ? changed.after : undefined;
    },
    async delete(id) {
      if (!hasNul(id)) await db.query('DELETE FROM webhooks WHERE id = $1', [id]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return webhooksOf((await db.query<{ doc: string }>('SELECT doc FROM webhooks WHERE id = $1', [id])).rows)[0];
    },
    async listByAccount(accountId) {
      if (hasNul(accountId)) return [];
      return (await ofAccount(accountId)) ?? [];
    },
    recordEvent: (event: EventRecord, list: DeliveryRecord[]) => recordEvent({ event, deliveries: list }),
    async markNoEvent(taskId) {
      if (!hasNul(taskId)) await markNoEvent(taskId);
    },
    async getEvent(id) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM events WHERE id = $1', [id]);
      return rows.length === 0 ? undefined : (JSON.parse(rows[0].doc) as EventRecord);
    },
    async settledWithoutEvent() {
      const { rows } = await db.query(
        `SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.status <> 'pending' AND t.event_id IS NULL ORDER BY t.settled_seq`,
      );
      return rows.map((row) => taskOf(row as Parameters<typeof taskOf>[0]));
    },
    recordAttempt: (id, attempt, status, nextAttemptAt) => recordAttempt({ id, attempt, status, nextAttemptAt }),
    async redeliver(id, at) {
      if (hasNul(id)) return undefined;
      const [delivery] = await deliveries(
        `UPDATE deliveries SET pending_seq = CASE WHEN status <> 'pending' THEN nextval('imgtask_order') ELSE pending_seq END,
           status = 'pending', next_attempt_at = $2, updated_at = $2
         WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`,
        [id, at],
      );
      return delivery;
    },
    async getDelivery(id) {
      if (hasNul(id)) return undefined;
      return (await deliveries(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1`, [id]))[0];
    },
    async pendingDeliveries() {
      return deliveries(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE status = 'pending' ORDER BY pending_seq`, []);
    },
    async nextDeliveries(limit, skip) {
      if (limit <= 0) return [];
      return deliveries(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries
         WHERE status = 'pending' AND next_attempt_at IS NOT NULL AND NOT (id = ANY($1::text[]))
         ORDER BY next_attempt_at, id LIMIT $2`,
        [[...skip].filter((id) => !hasNul(id)), limit],
      );
    },
    async deliveriesOf(webhookId, limit) {
      if (limit <= 0 || hasNul(webhookId)) return [];
      return deliveries(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`, [
        webhookId,
        limit,
      ]);
    },
    async deliveriesOfEvent(eventId) {
      if (hasNul(eventId)) return [];
      return deliveries(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE event_id = $1 ORDER BY id`, [eventId]);
    },
    async deliveryCounts() {
      const { rows } = await db.query<{ status: DeliveryRecord['status']; count: number }>(
        'SELECT status, count(*) AS count FROM deliveries GROUP BY status',
      );
      const count = (status: DeliveryRecord['status']) => rows.find((row) => row.status === status)?.count ?? 0;
      return { pending: count('pending'), delivered: count('delivered'), failed: count('failed') };
    },
    async listAll() {
      return webhooksOf((await db.query<{ doc: string }>('SELECT doc FROM webhooks ORDER BY seq')).rows);
    },
  };
}
