import type { AccountChanges, AccountRecord, CreditRecord } from '../records/accounts.js';
import type { ApiKeyChanges, ApiKeyRecord } from '../records/api-keys.js';
import type { BillingAlertRecord } from '../records/billing-alerts.js';
import type { ConsoleSessionRecord } from '../records/console-sessions.js';
import type { DestinationRecord } from '../records/destinations.js';
import type { IdempotencyRecord } from '../records/idempotency.js';
import type { LanePauseRecord } from '../records/lane-pauses.js';
import type { SecretRecord } from '../records/secrets.js';
import type { ItemRecord, TaskRecord, TaskSettlement } from '../records/tasks.js';
import type { UploadRecord } from '../records/uploads.js';
import type { DeliveryAttempt, DeliveryRecord, EventRecord, WebhookRecord } from '../records/webhooks.js';

/**
 * Every journaled op and its payload: one record each. `JournalEngine.commit` and the state's
 * handlers are typed by this map, so a repo cannot journal a payload its op does not take.
 */
export interface JournalOps {
  'account.create': AccountRecord;
  'account.credit': CreditRecord;
  /** New settings of an account (weight, retention, and an erase's name and marks). */
  'account.update': { id: string; changes: AccountChanges; at: string };
  /** A lane an operator paused (imgtask queues pause LANE). */
  'lane.pause': LanePauseRecord;
  'lane.resume': { id: string };
  'apiKey.create': ApiKeyRecord;
  'apiKey.revoke': { id: string; at: string };
  /** New settings of a key (PATCH /api-key/{id}). */
  'apiKey.update': { id: string; changes: ApiKeyChanges };
  /** When a key last authenticated; written at most once a minute per key. */
  'apiKey.touch': { id: string; at: string };
  /** A rotation in one record: the new key, and the old one's end (revoked now, or expiring at the grace's end). */
  'apiKey.rotate': { id: string; next: ApiKeyRecord; revokedAt?: string; expiresAt?: string };
  'secret.put': SecretRecord;
  'secret.delete': { id: string };
  'webhook.put': WebhookRecord;
  'webhook.delete': { id: string };
  /** An event with every delivery it fans out to, and its task's mark. */
  'event.record': { event: EventRecord; deliveries: DeliveryRecord[] };
  /** A settled task whose event no endpoint wants: only the mark. */
  'task.noEvent': { id: string };
  'delivery.attempt': {
    id: string;
    attempt: DeliveryAttempt;
    status: DeliveryRecord['status'];
    nextAttemptAt: string | null;
  };
  'delivery.redeliver': { id: string; at: string };
  /** A recorded event's new payload (a deleted task's scrubbed envelope). */
  'event.payload': { id: string; payload: unknown };
  /** Deliveries deleted (retention, an erase), and the events of theirs that no delivery is left of. */
  'delivery.purge': { ids: string[]; eventIds: string[] };
  'destination.put': DestinationRecord;
  'destination.delete': { id: string };
  /** A pending task; its estimate is reserved by being pending. */
  'task.create': TaskRecord;
  'task.item': { id: string; index: number; item: ItemRecord; at: string; prepared?: unknown };
  'task.prepare': { id: string; prepared: unknown; at: string };
  /** Settles a task and moves the money in one record. */
  'task.settle': TaskSettlement;
  /** A settled task's data removed: the handler scrubs it (`scrubbedTask`), so the record holds none of it. */
  'task.removeData': { id: string; at: string };
  /**
   * Records of settled tasks whose data is removed, deleted; their charges move to their accounts' `removedCharges`.
   */
  'task.purge': { ids: string[] };
  /** An uploaded image's owner record. */
  'upload.put': UploadRecord;
  'upload.delete': { id: string };
  /** An Idempotency-Key's answer (the file store keeps only answered keys; claims live in memory). */
  'idempotency.put': IdempotencyRecord;
  /** Drops the answers that expired at `before` or earlier. */
  'idempotency.purge': { before: string };
  /** Drops every answer of an account (an erase). */
  'idempotency.deleteAccount': { accountId: string };
  /** A console sign-in link or session. */
  'consoleSession.put': ConsoleSessionRecord;
  /** A link's one use. */
  'consoleSession.use': { id: string; at: string };
  'consoleSession.revoke': { id: string; at: string };
  /** Drops the console records that expired at `before` or earlier. */
  'consoleSession.purge': { before: string };
  /** Drops every console link and session of an account (an erase). */
  'consoleSession.deleteAccount': { accountId: string };
  /** A budget threshold's mark, with the event it sends and the event's deliveries. */
  'billingAlert.record': { alert: BillingAlertRecord; event: EventRecord; deliveries: DeliveryRecord[] };
}

export type JournalOp = keyof JournalOps;
