import type { IdempotencyRecord } from '../records/idempotency.js';

/** What `IdempotencyRepo.claim` finds: the claim is this request's, or the record already there. */
export type IdempotencyClaimResult = { claimed: true } | { claimed: false; record: IdempotencyRecord };

/**
 * Idempotency-Key records, one per account and key. A record is live until its `expiresAt`:
 * an in-flight claim (`claim` set) until it is renewed or answered, an answer for 24 h. `now` is
 * the caller's clock (ISO time), so tests can move it.
 */
export interface IdempotencyRepo {
  /** Writes `record` (a claim) unless a live record holds its id; atomic across processes. */
  claim(record: IdempotencyRecord, now: string): Promise<IdempotencyClaimResult>;
  /** Moves a claim's expiry on; false when the claim is no longer held (it lapsed and was taken). */
  renew(id: string, claim: string, expiresAt: string): Promise<boolean>;
  /**
   * Replaces the claim `claim` with the answered record; false, with nothing written, when the claim is no longer held.
   */
  complete(record: IdempotencyRecord, claim: string): Promise<boolean>;
  /** Drops the claim `claim` (an answer that is not kept), so the key can be used again. */
  release(id: string, claim: string): Promise<void>;
  /** The live record of `id` at `now`. */
  get(id: string, now: string): Promise<IdempotencyRecord | undefined>;
  /** Deletes every record expired at `now`. */
  purgeExpired(now: string): Promise<void>;
  /** Deletes every record of the account (an erase); answers how many. */
  deleteByAccount(accountId: string): Promise<number>;
}
