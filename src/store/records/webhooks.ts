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
