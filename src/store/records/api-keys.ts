import type { Micros } from '../../domain/money.js';
import type { SpendingLimitPeriod } from './accounts.js';

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
  /**
   * When the key last authenticated a request (written at most once a minute per key and process, so it may lag by a
   * minute).
   */
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
