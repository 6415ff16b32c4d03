import type { Micros } from '../domain/money.js';

export type SpendingLimitPeriod = 'day' | 'week' | 'month';

export interface AccountRecord {
  id: string;
  name: string;
  /** Credits minus charges, in micro-USD. */
  balance: Micros;
  createdAt: string;
  updatedAt: string;
}

/** One credit to an account's balance; the ledger the balance is checked against. */
export interface CreditRecord {
  id: string;
  accountId: string;
  amount: Micros;
  note?: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the raw key, hex. The raw key itself is never stored. */
  hash: string;
  preview: string;
  name?: string;
  scopes: string[];
  spendingLimit?: Micros;
  spendingLimitPeriod: SpendingLimitPeriod;
  createdAt: string;
  /** Set when the key is deleted; a revoked key is kept for the ledger but never accepted. */
  revokedAt?: string;
}

type ItemStatus = 'pending' | 'success' | 'failed';

/** One unit of a task's work (an image, a URL). Items finish independently. */
export interface ItemRecord {
  status: ItemStatus;
  /** Charged for this item at settlement, when it succeeded. */
  cost?: Micros;
  /** Type-specific output of a successful item. */
  result?: unknown;
  /** Why a failed item failed. `details` holds type-specific extras. */
  error?: { code: string; message?: string };
  attempts?: number;
}

export interface TaskRecord {
  id: string;
  type: string;
  status: 'pending' | 'completed' | 'failed';
  accountId: string;
  /** The key that created the task; null when it was an OAuth access token. */
  apiKeyId: string | null;
  /** The validated request, unknown fields dropped. */
  request: unknown;
  items: ItemRecord[];
  /** Reserved at creation; held while pending. */
  estimate: Micros;
  /** Charged at settlement (0 before). */
  cost: Micros;
  result: unknown;
  errors?: { code: string; message?: string }[];
  /** The event recorded for this task's settlement (webhooks). */
  eventId?: string;
  /** What the type's `prepare` worked out and must survive a restart (resolved model, size, magic prompt). */
  prepared?: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface TaskSettlement {
  id: string;
  status: 'completed' | 'failed';
  result: unknown;
  errors?: { code: string; message?: string }[];
  /** Sum charged; the rest of the estimate is released. */
  cost: Micros;
  at: string;
  /** The item whose finishing settles the task, recorded in the same journal write. */
  lastItem?: { index: number; item: ItemRecord };
}

/** A secret, encrypted (AES-256-GCM) with the data dir's secrets key; `id` is its name. */
export interface SecretRecord {
  id: string;
  /** base64 of iv (12 bytes) ‖ tag (16 bytes) ‖ ciphertext. */
  sealed: string;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookRecord {
  id: string;
  accountId: string;
  url: string;
  enabled: boolean;
  /** Event kinds, or null for all. */
  events: string[] | null;
  /** Keys whose tasks it receives; empty = every key of the account. */
  apiKeyIds: string[];
  /** The `whsec_…` signing secret, sealed with the secrets key (name = the webhook id). */
  sealedSecret: string;
  createdAt: string;
  updatedAt: string;
  /** When deliveries started failing with no success since. */
  failingSince?: string;
  /** Why the service disabled it (it kept failing). */
  disabledReason?: string;
}

export interface EventRecord {
  id: string;
  type: string;
  accountId: string;
  taskId: string | null;
  createdAt: string;
  /** The envelope delivered, as JSON. */
  payload: unknown;
}

export interface DeliveryAttempt {
  at: string;
  /** HTTP status; null when no answer came. */
  status: number | null;
  latencyMs: number;
  error?: string;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  accountId: string;
  /** The dashboard webhook; null for a per-task custom endpoint (unsigned). */
  webhookId: string | null;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DestinationRecord {
  id: string;
  accountId: string;
  name: string;
  provider: { id: 'local' | 's3' | 'http' };
  /** The config without its secret fields. */
  config: Record<string, unknown>;
  /** The secret fields as JSON, sealed with the secrets key (name = the destination id). */
  sealedSecrets?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Every journaled op and its payload: one record each. `JournalEngine.commit` and the state's
 * handlers are typed by this map, so a repo cannot journal a payload its op does not take.
 */
export interface JournalOps {
  'account.create': AccountRecord;
  'account.credit': CreditRecord;
  'apiKey.create': ApiKeyRecord;
  'apiKey.revoke': { id: string; at: string };
  'secret.put': SecretRecord;
  'secret.delete': { id: string };
  'webhook.put': WebhookRecord;
  'webhook.delete': { id: string };
  /** An event with every delivery it fans out to, and its task's mark. */
  'event.record': { event: EventRecord; deliveries: DeliveryRecord[] };
  /** A settled task whose event no endpoint wants: only the mark. */
  'task.noEvent': { id: string };
  'delivery.attempt': { id: string; attempt: DeliveryAttempt; status: DeliveryRecord['status']; nextAttemptAt: string | null };
  'delivery.redeliver': { id: string; at: string };
  'destination.put': DestinationRecord;
  'destination.delete': { id: string };
  /** A pending task; its estimate is reserved by being pending. */
  'task.create': TaskRecord;
  'task.item': { id: string; index: number; item: ItemRecord; at: string };
  'task.prepare': { id: string; prepared: unknown; at: string };
  /** Settles a task and moves the money in one record. */
  'task.settle': TaskSettlement;
}

export type JournalOp = keyof JournalOps;
