import type { ApiKeyChanges, ApiKeyRecord } from '../records/api-keys.js';

/**
 * `maxLive` bounds the account's live keys: not revoked, and not expired at `now` (an ISO time;
 * without it, expiry is not looked at).
 */
export interface KeyLimits {
  maxLive: number;
  now?: string;
}

export interface ApiKeyRepo {
  /** Fails with API_KEY_LIMIT_REACHED when the account already holds `maxLive` live keys. */
  create(key: ApiKeyRecord, limits: KeyLimits): Promise<ApiKeyRecord>;
  /** Marks a key revoked; returns the updated key, or undefined when it is unknown or already revoked. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this hash that is not revoked, if any (expiry is the caller's to check). */
  getLiveByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** The account's keys that are not revoked, oldest first (expired ones included). */
  listLive(accountId: string): Promise<ApiKeyRecord[]>;
  /** Changes a key's settings; undefined when it is unknown or revoked. */
  update(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | undefined>;
  /**
   * Removes the name (a client's text) of every key of the account, revoked ones included (an erase); answers how many
   * had one.
   */
  forgetNames(accountId: string): Promise<number>;
  /** Records when a key was last used; a time older than the one kept is ignored. */
  touch(id: string, at: string): Promise<void>;
  /**
   * Replaces key `id` by `next` in one write: the old key is revoked (`end.revokedAt`) or gets
   * `end.expiresAt`; `next` counts against `maxLive` (the old key too, unless revoked here).
   * Undefined, with nothing written, when the old key is unknown, revoked or expired at `now`.
   */
  rotate(
    id: string,
    next: ApiKeyRecord,
    end: { revokedAt?: string; expiresAt?: string },
    limits: KeyLimits,
  ): Promise<ApiKeyRecord | undefined>;
}

/**
 * Per-key request counters in fixed windows (requestsPerMinute). Shared by every process on
 * PostgreSQL; in memory for the file store (one process owns it).
 */
export interface RequestWindowRepo {
  /**
   * Counts one request of the key in the window starting at `windowStart` (ms); the count so far, this one included.
   */
  hit(keyId: string, windowStart: number): Promise<number>;
}
