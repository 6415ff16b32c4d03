import type { Micros } from '../../domain/money.js';

/**
 * A budget threshold reached, kept once per scope (an account or a key), period and threshold:
 * its presence is what stops a second `billing.threshold_reached` event. `id` is
 * `<scopeId>|<period>|<threshold>`.
 */
export interface BillingAlertRecord {
  id: string;
  scope: 'account' | 'key';
  accountId: string;
  /** The key, for a key's alert. */
  apiKeyId?: string;
  /** `2026-11` (an account's calendar month) or the key's period key (`d:2026-11-22`, `w:2026-11-16`, `m:2026-11`). */
  period: string;
  /** Percent. */
  threshold: number;
  used: Micros;
  limit: Micros;
  /** The event sent for it. */
  eventId: string;
  createdAt: string;
}
