import type { BillingAlertRecord } from '../../records/billing-alerts.js';
import { modelOf } from '../../records/tasks.js';
import type { DeliveryRecord, EventRecord } from '../../records/webhooks.js';
import type { BillingRepo, UsageEntry } from '../../repos/billing-alerts.js';
import type { Db } from '../db.js';
import { decode, docOf, hasNul } from '../sql.js';
import { EFFECTIVE_ACCOUNTS } from '../unapplied.js';
import { insertDeliveries } from './delivery-rows.js';

interface UsageRow {
  id: string;
  updated_at: string;
  api_key_id: string | null;
  type: string;
  cost: number;
  prepared: string | null;
  items: number;
}

/**
 * Usage and budget alert marks. A settled task's `updated_at` is its settlement time (nothing
 * changes it after), and `settled_month` (generated, indexed per account with the cost) its month;
 * times are compared in byte order (`COLLATE "C"`), as the file store compares them.
 * `billing_alerts` has one row per scope (account or key id), period and threshold: the insert
 * that wins (ON CONFLICT DO NOTHING) records the event with it, in one transaction, so one
 * process in any number sends it.
 */
export function createPgBillingRepo(db: Db): BillingRepo {
  return {
    async usage(accountId, from, to) {
      if ([accountId, from, to].some(hasNul)) return [];
      const { rows } = await db.query<UsageRow>(
        `SELECT t.id, t.updated_at, t.api_key_id, t.type, t.cost, t.prepared,
           (SELECT count(*) FROM task_items i WHERE i.task_id = t.id AND i.status = 'success') AS items
         FROM tasks t
         WHERE t.account_id = $1 AND t.settled_month BETWEEN left($2, 7) AND left($3, 7) AND t.updated_at COLLATE "C" >= $2 AND t.updated_at COLLATE "C" < $3
         ORDER BY t.id`,
        [accountId, from, to],
      );
      return rows.map(
        (row): UsageEntry => ({
          taskId: row.id,
          settledAt: row.updated_at,
          apiKeyId: row.api_key_id,
          type: row.type,
          model: modelOf({ prepared: decode(row.prepared) }),
          cost: row.cost,
          items: row.items,
        }),
      );
    },
    async monthBudget(accountId, month) {
      if (hasNul(accountId) || hasNul(month)) return undefined;
      // One statement: the sum and the balance as of one snapshot, whatever settles meanwhile.
      const { rows } = await db.query<{ charged: number; balance: number }>(
        `SELECT a.balance, (SELECT coalesce(sum(t.cost), 0) FROM tasks t WHERE t.account_id = a.id AND t.settled_month = $2) AS charged
         FROM ${EFFECTIVE_ACCOUNTS} a WHERE a.id = $1`,
        [accountId, month],
      );
      return rows.length === 0 ? undefined : { charged: rows[0].charged, balance: rows[0].balance };
    },
    async recordAlert(alert: BillingAlertRecord, event: EventRecord, deliveries: DeliveryRecord[]) {
      return db.tx(async (client) => {
        const inserted = await client.query(
          'INSERT INTO billing_alerts (scope_id, period, threshold, doc) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [alert.apiKeyId ?? alert.accountId, alert.period, alert.threshold, docOf(alert, [])],
        );
        if (inserted.rowCount === 0) return false;
        await client.query('INSERT INTO events (id, task_id, doc, account_id) VALUES ($1, NULL, $2, $3)', [
          event.id,
          docOf(event, []),
          event.accountId,
        ]);
        await insertDeliveries(client, deliveries);
        return true;
      });
    },
    async getAlert(id) {
      const [scopeId, period, threshold] = id.split('|');
      if (hasNul(id) || period === undefined || !/^\d{1,9}$/.test(threshold ?? '')) return undefined;
      const { rows } = await db.query<{ doc: string }>(
        'SELECT doc FROM billing_alerts WHERE scope_id = $1 AND period = $2 AND threshold = $3',
        [scopeId, period, Number(threshold)],
      );
      return rows.length === 0 ? undefined : (JSON.parse(rows[0].doc) as BillingAlertRecord);
    },
  };
}
