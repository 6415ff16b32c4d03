import { applyWebhookChanges, applyWebhookHealth, type DeliveryRecord, type EventRecord, type WebhookRecord } from '../records.js';
import type { WebhookRepo } from '../types.js';
import { type Db, docOf, hasNul, stored } from './sql.js';
import { TASK_COLUMNS, taskOf } from './tasks.js';

/**
 * Webhooks, events and deliveries. A delivery's changing fields are columns (its attempts as
 * one JSON array text, appended to in SQL); `pending_seq` orders pending deliveries as the file
 * store lists them: by when each last became pending.
 */
export const DELIVERY_MUTABLE = ['status', 'attempts', 'nextAttemptAt', 'updatedAt'] as const;
export const DELIVERY_COLUMNS = 'doc, status, attempts, next_attempt_at, updated_at';

interface DeliveryRow {
  doc: string;
  status: DeliveryRecord['status'];
  attempts: string;
  next_attempt_at: string | null;
  updated_at: string;
}

export const deliveryOf = (row: DeliveryRow): DeliveryRecord => {
  const delivery = JSON.parse(row.doc) as DeliveryRecord;
  delivery.status = row.status;
  delivery.attempts = JSON.parse(row.attempts);
  delivery.nextAttemptAt = row.next_attempt_at;
  delivery.updatedAt = row.updated_at;
  return delivery;
};

const webhooksOf = (rows: { doc: string }[]): WebhookRecord[] => rows.map((row) => JSON.parse(row.doc) as WebhookRecord);

type Client = Parameters<Parameters<Db['tx']>[0]>[0];

/** Reads a webhook under a row lock, changes it with `change` and writes it back; undefined (nothing written) when it is gone or `change` declines. */
async function rewrite(db: Db, id: string, change: (webhook: WebhookRecord) => WebhookRecord | undefined): Promise<{ before: WebhookRecord; after: WebhookRecord } | undefined> {
  if (hasNul(id)) return undefined;
  return db.tx(async (client) => {
    const [before] = webhooksOf((await client.query<{ doc: string }>('SELECT doc FROM webhooks WHERE id = $1 FOR UPDATE', [id])).rows);
    const after = before && change(before);
    if (!after) return undefined;
    await client.query('UPDATE webhooks SET doc = $2 WHERE id = $1', [id, docOf(after, [])]);
    return { before, after: stored(after) };
  });
}

/** Inserts deliveries in their order (the pending ones take the next places in the due order); none is a no-op. */
export async function insertDeliveries(client: Pick<Client, 'query'>, list: readonly DeliveryRecord[]): Promise<void> {
  if (list.length === 0) return;
  await client.query(
    `INSERT INTO deliveries (id, pending_seq, webhook_id, status, next_attempt_at, updated_at, attempts, doc)
     SELECT u.id, CASE WHEN u.status = 'pending' THEN nextval('imgtask_order') END, u.webhook_id, u.status, u.next_attempt_at, u.updated_at, u.attempts, u.doc
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY
       AS u(id, webhook_id, status, next_attempt_at, updated_at, attempts, doc, ord)
     ORDER BY u.ord`,
    [
      list.map((d) => d.id),
      list.map((d) => d.webhookId),
      list.map((d) => d.status),
      list.map((d) => d.nextAttemptAt),
      list.map((d) => d.updatedAt),
      list.map((d) => JSON.stringify(d.attempts)),
      list.map((d) => docOf(d, DELIVERY_MUTABLE)),
    ],
  );
}

export function createPgWebhookRepo(db: Db): WebhookRepo {
  const deliveries = async (sql: string, values: unknown[]): Promise<DeliveryRecord[]> => (await db.query<DeliveryRow>(sql, values)).rows.map(deliveryOf);
  return {
    async put(webhook) {
      await db.query('INSERT INTO webhooks (id, account_id, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, doc = excluded.doc', [
        webhook.id,
        webhook.accountId,
        docOf(webhook, []),
      ]);
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
      return webhooksOf((await db.query<{ doc: string }>('SELECT doc FROM webhooks WHERE account_id = $1 ORDER BY seq', [accountId])).rows);
    },
    async recordEvent(event: EventRecord, list: DeliveryRecord[]) {
      await db.tx(async (client) => {
        if (event.taskId !== null) {
          // Several processes may record a settled task's event at once (one settling it, another
          // recovering events at its start): the task row decides, the first one recorded stays.
          const { rows } = await client.query<{ event_id: string | null }>('SELECT event_id FROM tasks WHERE id = $1 FOR UPDATE', [event.taskId]);
          if (rows.length > 0 && rows[0].event_id !== null && rows[0].event_id !== event.id) return;
        }
        const inserted = await client.query('INSERT INTO events (id, task_id, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [event.id, event.taskId, docOf(event, [])]);
        if (inserted.rowCount === 0) return; // recorded before: nothing to do
        await insertDeliveries(client, list);
        if (event.taskId !== null) await client.query('UPDATE tasks SET event_id = $2 WHERE id = $1', [event.taskId, event.id]);
      });
    },
    async markNoEvent(taskId) {
      if (!hasNul(taskId)) await db.query(`UPDATE tasks SET event_id = 'none' WHERE id = $1 AND event_id IS NULL`, [taskId]);
    },
    async getEvent(id) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM events WHERE id = $1', [id]);
      return rows.length === 0 ? undefined : (JSON.parse(rows[0].doc) as EventRecord);
    },
    async settledWithoutEvent() {
      const { rows } = await db.query(`SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.status <> 'pending' AND t.event_id IS NULL ORDER BY t.settled_seq`);
      return rows.map((row) => taskOf(row as Parameters<typeof taskOf>[0]));
    },
    async recordAttempt(id, attempt, status, nextAttemptAt) {
      const [delivery] = await deliveries(
        `UPDATE deliveries SET
           attempts = CASE WHEN attempts = '[]' THEN '[' || $2 || ']' ELSE left(attempts, -1) || ',' || $2 || ']' END,
           pending_seq = CASE WHEN status <> 'pending' AND $3 = 'pending' THEN nextval('imgtask_order') ELSE pending_seq END,
           status = $3, next_attempt_at = $4, updated_at = $5
         WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`,
        [id, JSON.stringify(attempt), status, nextAttemptAt, attempt.at],
      );
      if (!delivery) throw new Error(`no delivery ${id}`);
      return delivery;
    },
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
      return deliveries(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`, [webhookId, limit]);
    },
    async deliveryCounts() {
      const { rows } = await db.query<{ status: DeliveryRecord['status']; count: number }>('SELECT status, count(*) AS count FROM deliveries GROUP BY status');
      const count = (status: DeliveryRecord['status']) => rows.find((row) => row.status === status)?.count ?? 0;
      return { pending: count('pending'), delivered: count('delivered'), failed: count('failed') };
    },
    async listAll() {
      return webhooksOf((await db.query<{ doc: string }>('SELECT doc FROM webhooks ORDER BY seq')).rows);
    },
  };
}
