import type { Micros } from '../domain/money.js';

export type SpendingLimitPeriod = 'day' | 'week' | 'month';

export interface AccountRecord {
  id: string;
  name: string;
  /** Credits minus charges, in micro-USD. */
  balance: Micros;
  /** Its share of a lane against other accounts with queued work (1..100); absent: 1 (docs/scheduling.md). */
  weight?: number;
  /** Its own retention, in place of the config's (imgtask accounts set --retain-*): absent kinds follow the config. */
  retention?: RetentionOverrides;
  /** Charges of its tasks whose records retention removed (TaskRepo.purge): the ledger still adds them (credits − charges = balance). */
  removedCharges?: Micros;
  /** An erase under way (imgtask accounts erase): set first, so a crash in the middle is finished at the next start. */
  erasingSince?: string;
  /** When the account was erased: its name is then its id, and it holds nothing but amounts and ids. */
  erasedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** Per-account retention (docs/data-lifecycle.md): a duration in the config's form (`7d`, `12h`), or `off` (kept forever). */
export interface RetentionOverrides {
  outputs?: string;
  uploads?: string;
  tasks?: string;
}

/** A change to an account's settings (imgtask accounts set, and erase): an absent field is kept. */
export interface AccountChanges {
  weight?: number;
  /** Replaces the account's overrides as a whole (an empty object: follow the config in everything). */
  retention?: RetentionOverrides;
  name?: string;
  /** null clears it. */
  erasingSince?: string | null;
  erasedAt?: string;
}

/**
 * An account with `changes` made (both stores apply them so): absent fields are kept, `null`
 * clears, and an empty `retention` leaves no overrides at all (the field goes).
 */
export function applyAccountChanges(account: AccountRecord, changes: AccountChanges, at: string): AccountRecord {
  const next: Record<string, unknown> = { ...account };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  if (changes.retention) {
    const kept = Object.entries(changes.retention).filter(([, value]) => value !== undefined);
    if (kept.length === 0) delete next.retention;
    else next.retention = Object.fromEntries(kept);
  }
  next.updatedAt = at;
  return next as unknown as AccountRecord;
}

/**
 * An image a client uploaded (POST /image/upload): whose it is, for DELETE /image/upload/{id},
 * retention and the account's stored bytes. `id` is the image id (`img_…`).
 */
export interface UploadRecord {
  id: string;
  accountId: string;
  /** The key that uploaded it; null for an access token. */
  apiKeyId: string | null;
  /** The blob's name (`img_….png`). */
  fileName: string;
  bytes: number;
  createdAt: string;
  /**
   * When its owner deleted it (DELETE /image/upload/{id}): its file is gone and the record stays
   * as a tombstone, so a repeat answers as the first did. Deleted records hold no bytes, and
   * neither retention nor usage counts them.
   */
  deletedAt?: string;
}

/** A file an item stored (an image, a video, a video's poster): its blob name and size. Never shown in the API. */
export interface StoredFile {
  name: string;
  bytes: number;
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
  /** Requests per fixed minute window the key may make; absent: no limit. */
  requestsPerMinute?: number;
  /** From then on the key is refused as a deleted one is (a rotated key's grace ends here). */
  expiresAt?: string;
  /** When the key last authenticated a request (written at most once a minute per key and process, so it may lag by a minute). */
  lastUsedAt?: string;
  /** The key this one replaced (POST /api-key/{id}/rotate). */
  rotatedFrom?: string;
  /** At most this many items of the key's tasks run at once, fleet-wide; absent: no bound. */
  maxConcurrent?: number;
  /** The highest `priority` a create with this key may ask for (-10..10); absent: 0. */
  maxPriority?: number;
}

/** A change to a key's settings: a field set to null is removed, an absent one is kept. */
export interface ApiKeyChanges {
  name?: string | null;
  requestsPerMinute?: number | null;
  expiresAt?: string | null;
  spendingLimit?: Micros | null;
  spendingLimitPeriod?: SpendingLimitPeriod;
  maxConcurrent?: number | null;
  maxPriority?: number | null;
}

/** The key's record after `changes` (pure: both backends apply it, replay included). */
export function applyKeyChanges(key: ApiKeyRecord, changes: ApiKeyChanges): ApiKeyRecord {
  const next: Record<string, unknown> = { ...key };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next as unknown as ApiKeyRecord;
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
  /** The files it stored (outputs, thumbnails, posters): what deleting the task removes, and the account's stored bytes. */
  files?: StoredFile[];
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
  /** Its place against other work in its lane (-10..10, the request's `priority`); absent: 0. */
  priority?: number;
  /** When its unfinished items are cancelled with TASK_EXPIRED (the create's Cancel-After), ISO with milliseconds. */
  deadlineAt?: string;
  /** When its data was removed (DELETE /tasks/{id}, retention, an erase): see scrubbedTask. */
  dataRemovedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A settled task with its data removed: what accounting needs and nothing a client wrote or an
 * engine made. Kept: ids, type, status, owner, amounts, timestamps (updatedAt stays the
 * settlement time usage counts by), the model it ran on, priority and deadline, items' statuses,
 * costs, attempts and error codes. Gone: the request (prompts, metadata, URLs), the result (alt
 * text, findings, magic prompts, image URLs), error messages and the items' files (their blobs
 * are deleted first). Idempotent: a scrubbed task scrubs to itself.
 */
export function scrubbedTask(task: TaskRecord, at: string): TaskRecord {
  const model = modelOf(task);
  const scrubbed: TaskRecord = {
    id: task.id,
    type: task.type,
    status: task.status,
    accountId: task.accountId,
    apiKeyId: task.apiKeyId,
    request: {},
    items: task.items.map((item) => scrubbedItem(item)),
    estimate: task.estimate,
    cost: task.cost,
    result: null,
    dataRemovedAt: task.dataRemovedAt ?? at,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
  if (task.errors) scrubbed.errors = task.errors.map(({ code }) => ({ code }));
  if (task.eventId !== undefined) scrubbed.eventId = task.eventId;
  if (model !== null) scrubbed.prepared = { model };
  if (task.priority !== undefined) scrubbed.priority = task.priority;
  if (task.deadlineAt !== undefined) scrubbed.deadlineAt = task.deadlineAt;
  return scrubbed;
}

function scrubbedItem(item: ItemRecord): ItemRecord {
  const out: ItemRecord = { status: item.status };
  if (item.cost !== undefined) out.cost = item.cost;
  if (item.attempts !== undefined) out.attempts = item.attempts;
  if (item.error) out.error = { code: item.error.code };
  return out;
}

/** How many of a task's items have finished (succeeded or failed). */
export const finishedItems = (task: TaskRecord): number =>
  task.items.filter((item) => item.status !== 'pending').length;

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
  /** How many items had finished when the settlement was worked out (a cancel): refused if more have finished since. */
  finished?: number;
  /** What every item still pending becomes, in the same write (a cancel fails them with TASK_CANCELLED). */
  unfinishedItem?: ItemRecord;
  /** What prepare worked out, kept with this write when the task has none yet (see TaskRepo.recordItem). */
  prepared?: unknown;
  /** Nobody is to be told of it (no webhook or endpoint would get its event): marked in this write, not in one of its own. */
  noEvent?: boolean;
}

/** The event id of a settled task that needed none (nobody to tell). */
export const NO_EVENT = 'none';

/** The task as a settlement leaves it (the store checked that it applies). */
export function settledTask(task: TaskRecord, s: TaskSettlement): TaskRecord {
  const settled: TaskRecord = {
    ...task,
    items: settledItems(task.items, s),
    status: s.status,
    result: s.result,
    cost: s.cost,
    updatedAt: s.at,
    ...preparedOnce(task, s.prepared),
  };
  if (s.errors) settled.errors = s.errors;
  if (s.noEvent && !task.eventId) settled.eventId = NO_EVENT;
  return settled;
}

/**
 * What prepare worked out, carried by an item record or a settlement (TaskRepo.recordItem): kept
 * only when the task has none yet. Spread into the task as written.
 */
export function preparedOnce(task: Pick<TaskRecord, 'prepared'>, prepared: unknown): Pick<TaskRecord, 'prepared'> {
  return prepared === undefined || task.prepared !== undefined ? {} : { prepared };
}

/** The task's items once settled: `lastItem` in its place, each item still pending as `unfinishedItem` says (else left as it is). */
export function settledItems(
  items: readonly ItemRecord[],
  s: Pick<TaskSettlement, 'lastItem' | 'unfinishedItem'>,
): ItemRecord[] {
  const out = items.slice();
  if (s.lastItem) out[s.lastItem.index] = s.lastItem.item;
  if (s.unfinishedItem)
    for (const [index, item] of out.entries()) if (item.status === 'pending') out[index] = s.unfinishedItem;
  return out;
}

/** The model a task ran on, as `prepare` resolved it (image.generate, video.generate); null otherwise. */
export function modelOf(task: Pick<TaskRecord, 'prepared'>): string | null {
  const model = (task.prepared as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' ? model : null;
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

/** A change to a webhook's settings: absent fields are kept. Re-enabling clears the health record that disabled it. */
export interface WebhookChanges {
  url?: string;
  events?: string[] | null;
  apiKeyIds?: string[];
  enabled?: boolean;
  sealedSecret?: string;
  updatedAt: string;
}

/** The webhook's record after `changes` (pure: both backends apply it to the record as stored). */
export function applyWebhookChanges(webhook: WebhookRecord, changes: WebhookChanges): WebhookRecord {
  const next: WebhookRecord = { ...webhook };
  for (const [field, value] of Object.entries(changes))
    if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  if (changes.enabled === true) {
    delete next.failingSince;
    delete next.disabledReason;
  }
  return next;
}

/** What one delivery attempt tells of its webhook's health. */
export interface WebhookHealth {
  ok: boolean;
  at: string;
  /** A webhook with no success for this long is disabled at its next failure. */
  disableAfterMs: number;
}

/**
 * The webhook's record after an attempt, or undefined when its health record does not change
 * (pure: both backends work it out on the record as stored, so it never undoes another write).
 */
export function applyWebhookHealth(webhook: WebhookRecord, health: WebhookHealth): WebhookRecord | undefined {
  if (health.ok) {
    if (!webhook.failingSince) return undefined;
    const healthy = { ...webhook };
    delete healthy.failingSince;
    return healthy;
  }
  if (!webhook.failingSince) return { ...webhook, failingSince: health.at };
  if (webhook.enabled && Date.parse(health.at) - Date.parse(webhook.failingSince) >= health.disableAfterMs) {
    return {
      ...webhook,
      enabled: false,
      disabledReason: `no successful delivery since ${webhook.failingSince}`,
      updatedAt: health.at,
    };
  }
  return undefined;
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

/**
 * An Idempotency-Key's first request and, once answered, its answer (sealed with the secrets
 * key: it may hold a raw API key or a webhook secret). `id` is `<accountId>:<key>`.
 */
export interface IdempotencyRecord {
  id: string;
  accountId: string;
  key: string;
  /** SHA-256 (hex) of the method, the path and the body. */
  fingerprint: string;
  createdAt: string;
  /** In flight: when the claim lapses unless renewed; answered: when the answer stops being served (24 h). */
  expiresAt: string;
  /** In flight only: the claim's token (the answer's writer must hold it). */
  claim?: string;
  /** Answered only: the answer `{ status, headers, body }` as JSON, sealed. */
  answer?: string;
}

/**
 * A web console credential: a one-time sign-in link (`kind: 'link'`) or a signed-in session
 * (`kind: 'session'`). Only the SHA-256 of its secret is kept (`hash`), as for API keys; `id`
 * names it in lists and for revoking. Not in dumps: sessions are short-lived and re-issued.
 */
export interface ConsoleSessionRecord {
  id: string;
  /** SHA-256 (hex) of the link's code or the session's cookie value. */
  hash: string;
  kind: 'link' | 'session';
  /** The account it acts for; null for the operator view (every account). */
  accountId: string | null;
  /** What the holder may do, as an access token's scopes. */
  scopes: string[];
  /** How a session was opened: a printed link, or a pasted access token. */
  via?: 'link' | 'token';
  /** A link's page to open after sign-in (a /console path). */
  next?: string;
  createdAt: string;
  expiresAt: string;
  /** A link's single use. */
  usedAt?: string;
  revokedAt?: string;
  /** The browser that signed in, as it named itself (shown in `console sessions list`). */
  userAgent?: string;
}

/** A lane an operator paused: its queued work waits until it is resumed (docs/scheduling.md). */
export interface LanePauseRecord {
  /** The lane's name. */
  id: string;
  pausedAt: string;
}
