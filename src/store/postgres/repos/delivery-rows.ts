import type { DeliveryRecord } from '../../records/webhooks.js';
import type { Db } from '../db.js';
import { docOf } from '../sql.js';

/**
 * Deliveries as rows. A delivery's changing fields are columns (its attempts as
 * one JSON array text, appended to in SQL); `pending_seq` orders pending deliveries as the file
 * store lists them: by when each last became pending.
 */
export const DELIVERY_MUTABLE = ['status', 'attempts', 'nextAttemptAt', 'updatedAt'] as const;
export const DELIVERY_COLUMNS = 'doc, status, attempts, next_attempt_at, updated_at';

export interface DeliveryRow {
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

type Client = Parameters<Parameters<Db['tx']>[0]>[0];

/** Inserts deliveries in their order (the pending ones take the next places in the due order); none is a no-op. */
export async function insertDeliveries(client: Pick<Client, 'query'>, list: readonly DeliveryRecord[]): Promise<void> {
  if (list.length === 0) return;
  await client.query(
    `INSERT INTO deliveries (id, event_id, pending_seq, webhook_id, status, next_attempt_at, updated_at, attempts, doc, account_id)
     SELECT u.id, u.event_id, CASE WHEN u.status = 'pending' THEN nextval('imgtask_order') END, u.webhook_id, u.status, u.next_attempt_at, u.updated_at, u.attempts, u.doc, u.account_id
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY
       AS u(id, webhook_id, status, next_attempt_at, updated_at, attempts, doc, event_id, account_id, ord)
     ORDER BY u.ord`,
    [
      list.map((d) => d.id),
      list.map((d) => d.webhookId),
      list.map((d) => d.status),
      list.map((d) => d.nextAttemptAt),
      list.map((d) => d.updatedAt),
      list.map((d) => JSON.stringify(d.attempts)),
      list.map((d) => docOf(d, DELIVERY_MUTABLE)),
      list.map((d) => d.eventId),
      list.map((d) => d.accountId),
    ],
  );
}
