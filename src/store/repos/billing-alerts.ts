import type { BillingAlertRecord } from '../records/billing-alerts.js';
import type { DeliveryRecord, EventRecord } from '../records/webhooks.js';

/** One settled task as usage counts it: what it was charged, when it settled, and what it ran on. */
export interface UsageEntry {
  taskId: string;
  /** Settlement time (the task's `updatedAt` once settled). */
  settledAt: string;
  apiKeyId: string | null;
  type: string;
  /**
   * The model it ran on (`prepared.model` of image.generate and video.generate); null for other types, or a task that
   * never got that far.
   */
  model: string | null;
  /** Charged, micro-USD. */
  cost: number;
  /** Its successful items (those charged). */
  items: number;
}

export interface BillingRepo {
  /** The account's tasks settled at `from` <= time < `to` (ISO timestamps), by task id. */
  usage(accountId: string, from: string, to: string): Promise<UsageEntry[]>;
  /**
   * As of one moment: the sum charged to the account by tasks settled in a UTC calendar month
   * (`2026-11`), and its balance; undefined when there is no such account.
   */
  monthBudget(accountId: string, month: string): Promise<{ charged: number; balance: number } | undefined>;
  /**
   * Records a threshold's mark with its event and the event's deliveries, all in one write;
   * false, with nothing written, when the mark exists already: the mark decides, across
   * processes, who sends the event.
   */
  recordAlert(alert: BillingAlertRecord, event: EventRecord, deliveries: DeliveryRecord[]): Promise<boolean>;
  getAlert(id: string): Promise<BillingAlertRecord | undefined>;
}
