import type { EventRecord } from '../../records/webhooks.js';
import type { WebhookRepo } from '../../repos/webhooks.js';
import type { Db } from '../db.js';
import { docOf, hasNul } from '../sql.js';

/**
 * What removes webhook payloads and delivery logs (docs/data-lifecycle.md): a deleted task's
 * event gets its scrubbed envelope in place of the old one, and retention (or an erase) deletes
 * deliveries and the events left with none.
 */
type EventRemovalRepo = Pick<WebhookRepo, 'replaceEventPayload' | 'purgeDeliveries'>;

/**
 * Deliveries settled (not pending) before $1, oldest first, at most $2, and the events left with
 * none. The deletes read the tables as they were when the statement began: an event still counts
 * the deliveries deleted beside it, so those are left out by id.
 */
const PURGE_SETTLED = `WITH gone AS (
  DELETE FROM deliveries d WHERE d.id IN (
    SELECT id FROM deliveries WHERE status <> 'pending' AND updated_at COLLATE "C" < $1 ORDER BY updated_at COLLATE "C", id LIMIT $2 FOR UPDATE SKIP LOCKED
  ) AND d.status <> 'pending' RETURNING d.id, d.event_id
), emptied AS (
  DELETE FROM events e WHERE e.id IN (SELECT event_id FROM gone)
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND NOT (d.id IN (SELECT id FROM gone)))
)
SELECT count(*) AS purged FROM gone`;

/**
 * An erase: at most $2 of account $1's deliveries, whatever their status or age, and the events
 * left with none; in the last batch (fewer than $2), also the account's events that never had one.
 */
const PURGE_ACCOUNT = `WITH gone AS (
  DELETE FROM deliveries d WHERE d.id IN (SELECT id FROM deliveries WHERE account_id = $1 ORDER BY id LIMIT $2 FOR UPDATE) RETURNING d.id, d.event_id
), emptied AS (
  DELETE FROM events e WHERE e.account_id = $1
    AND (e.id IN (SELECT event_id FROM gone) OR (SELECT count(*) FROM gone) < $2)
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND NOT (d.id IN (SELECT id FROM gone)))
)
SELECT count(*) AS purged FROM gone`;

export function createPgEventRemoval(db: Db): EventRemovalRepo {
  return {
    async replaceEventPayload(eventId, payload) {
      if (hasNul(eventId)) return false;
      return db.tx(async (client) => {
        const { rows } = await client.query<{ doc: string }>('SELECT doc FROM events WHERE id = $1 FOR UPDATE', [
          eventId,
        ]);
        if (rows.length === 0) return false;
        const event = { ...(JSON.parse(rows[0].doc) as EventRecord), payload };
        await client.query('UPDATE events SET doc = $2 WHERE id = $1', [eventId, docOf(event, [])]);
        return true;
      });
    },
    async purgeDeliveries(before, limit, accountId) {
      if (limit <= 0) return 0;
      if (accountId !== undefined) {
        if (hasNul(accountId)) return 0;
        return (await db.query<{ purged: number }>(PURGE_ACCOUNT, [accountId, limit])).rows[0].purged;
      }
      if (hasNul(before)) return 0;
      return (await db.query<{ purged: number }>(PURGE_SETTLED, [before, limit])).rows[0].purged;
    },
  };
}
