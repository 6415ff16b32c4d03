import { hash } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { randomBase62, sortableId } from '../domain/ids.js';
import { formatUsd } from '../domain/money.js';
import { PRIORITY } from '../domain/scheduling.js';
import { isoTime } from '../domain/time.js';
import type { ApiKeyChanges, ApiKeyRecord, SpendingLimitPeriod } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import {
  type CreateKeyInput,
  futureTime,
  grantedScopes,
  spendingLimitMicros,
  type UpdateKeyInput,
} from './api-key-inputs.js';
import { type Clock, type Owner, ownedBy } from './ports.js';

/** An account can hold at most 100 live keys (docs/api/keys-and-scopes.md#api-keys). */
const MAX_LIVE_KEYS = 100;

// One-shot hashing: no Hash object per request.
const hashApiKey = (raw: string): string => hash('sha256', raw, 'hex');

/** A rotated key stays valid this long unless the caller says otherwise (POST /api-key/{id}/rotate). */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
/** lastUsedAt is written at most this often per key (per process). */
const TOUCH_INTERVAL_MS = 60_000;
/** requestsPerMinute counts requests in fixed windows of this length, aligned on the clock's minutes. */
const WINDOW_MS = 60_000;

export interface ApiKeyView {
  id: string;
  keyPreview: string;
  userId: string;
  name?: string;
  scopes: string[];
  spendingLimit?: string;
  spendingLimitPeriod: SpendingLimitPeriod;
  createdAt: string;
  requestsPerMinute?: number;
  expiresAt?: string;
  lastUsedAt?: string;
  rotatedFrom?: string;
  /** null: no bound. */
  maxConcurrent: number | null;
  maxPriority: number;
}

export function toApiKeyView(key: ApiKeyRecord): ApiKeyView {
  const view: ApiKeyView = {
    id: key.id,
    keyPreview: key.preview,
    userId: key.accountId,
    scopes: key.scopes,
    spendingLimitPeriod: key.spendingLimitPeriod,
    createdAt: key.createdAt,
    maxConcurrent: key.maxConcurrent ?? null,
    maxPriority: key.maxPriority ?? PRIORITY.default,
  };
  if (key.name !== undefined) view.name = key.name;
  if (key.spendingLimit !== undefined) view.spendingLimit = formatUsd(key.spendingLimit);
  if (key.requestsPerMinute !== undefined) view.requestsPerMinute = key.requestsPerMinute;
  if (key.expiresAt !== undefined) view.expiresAt = key.expiresAt;
  if (key.lastUsedAt !== undefined) view.lastUsedAt = key.lastUsedAt;
  if (key.rotatedFrom !== undefined) view.rotatedFrom = key.rotatedFrom;
  return view;
}

/** Where a limited key stands in its current window: what the RateLimit-* headers say. */
export interface KeyRateState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
  /** False once this request is past the limit. */
  allowed: boolean;
}

/** A new key: the raw key, shown here once and never stored, and its view. */
export interface CreatedKey {
  apiKey: ApiKeyView;
  raw: string;
}

/** API keys: made, listed, changed, rotated and revoked per account; resolved and counted per request. */
export interface ApiKeyService {
  /** Makes a key; the raw key is returned here once and never stored. */
  create(input: CreateKeyInput): Promise<CreatedKey>;
  /** The account's live keys: an expired key is gone as a deleted one is. */
  list(accountId: string): Promise<ApiKeyView[]>;
  /** A live key of this account; anything else is API_KEY_NOT_FOUND. */
  get(accountId: string, id: string): Promise<ApiKeyView>;
  revoke(owner: Owner, id: string): Promise<ApiKeyView>;
  /** Changes a live key's name, limits or expiry; null removes a setting. */
  update(owner: Owner, id: string, input: UpdateKeyInput): Promise<ApiKeyView>;
  /** A new raw key with the old one's settings; the old key works for `graceSeconds` (default 24 h), 0 revokes it. */
  rotate(owner: Owner, id: string, graceSeconds?: number): Promise<CreatedKey & { previous: ApiKeyView }>;
  /** The live key a raw key names, if any: not revoked, not expired. */
  resolve(raw: string): Promise<ApiKeyRecord | undefined>;
  /** Notes that a key authenticated a request (lastUsedAt, written at most once a minute per key). */
  markUsed(key: ApiKeyRecord): void;
  /** Counts one request of a key with requestsPerMinute in its current fixed window. */
  countRequest(keyId: string, limit: number): Promise<KeyRateState>;
}

const expired = (key: ApiKeyRecord, now: number): boolean =>
  key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now;

export function createApiKeyService(
  store: Store,
  clock: Clock,
  log: (message: string) => void = () => {},
): ApiKeyService {
  const limits = () => ({ maxLive: MAX_LIVE_KEYS, now: isoTime(clock.now()) });
  /** A live key (not revoked, not expired) the owner may see; anything else is API_KEY_NOT_FOUND. */
  async function liveKey(owner: Owner, id: string): Promise<ApiKeyRecord> {
    const key = await store.apiKeys.get(id);
    if (!key || key.revokedAt || expired(key, clock.now()) || !ownedBy(owner, key.accountId))
      throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
    return key;
  }
  /** Per key, when this process last wrote its lastUsedAt. */
  const touched = new Map<string, number>();

  return {
    /** Makes a key; the raw key is returned here once and never stored. */
    async create(input: CreateKeyInput): Promise<CreatedKey> {
      const scopes = grantedScopes(input);
      // 32 random bytes of entropy: 43 base62 characters.
      const raw = `mak_${randomBase62(43)}`;
      const record: ApiKeyRecord = {
        id: sortableId('key', clock.now()),
        accountId: input.accountId,
        hash: hashApiKey(raw),
        preview: `${raw.slice(0, 8)}...${raw.slice(-4)}`,
        scopes,
        spendingLimitPeriod: input.spendingLimitPeriod ?? 'month',
        createdAt: isoTime(clock.now()),
      };
      if (input.name !== undefined) record.name = input.name;
      if (input.spendingLimit !== undefined) record.spendingLimit = spendingLimitMicros(input.spendingLimit);
      if (input.requestsPerMinute !== undefined) record.requestsPerMinute = input.requestsPerMinute;
      if (input.expiresAt !== undefined) record.expiresAt = futureTime(input.expiresAt, clock.now());
      if (input.maxConcurrent != null) record.maxConcurrent = input.maxConcurrent;
      if (input.maxPriority != null) record.maxPriority = input.maxPriority;
      const stored = await store.apiKeys.create(record, limits());
      return { apiKey: toApiKeyView(stored), raw };
    },

    /** The account's live keys: an expired key is gone as a deleted one is. */
    async list(accountId: string): Promise<ApiKeyView[]> {
      const now = clock.now();
      return (await store.apiKeys.listLive(accountId)).filter((key) => !expired(key, now)).map(toApiKeyView);
    },

    /**
     * A live key of this account; another account's, a deleted or an expired key is API_KEY_NOT_FOUND (its message
     * stays out of API answers: docs/api/errors.md).
     */
    async get(accountId: string, id: string): Promise<ApiKeyView> {
      return toApiKeyView(await liveKey(accountId, id));
    },

    async revoke(owner: Owner, id: string): Promise<ApiKeyView> {
      await liveKey(owner, id);
      const revoked = await store.apiKeys.revoke(id, isoTime(clock.now()));
      if (!revoked) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      return toApiKeyView(revoked);
    },

    /** Changes a live key's name, limits or expiry; null removes a setting. */
    async update(owner: Owner, id: string, input: UpdateKeyInput): Promise<ApiKeyView> {
      const { spendingLimit, ...rest } = input;
      const changes = Object.fromEntries(
        Object.entries({
          ...rest,
          spendingLimit: spendingLimit == null ? spendingLimit : spendingLimitMicros(spendingLimit),
        }).filter(([, value]) => value !== undefined),
      ) as ApiKeyChanges;
      if (Object.keys(changes).length === 0) {
        throw new AppError(
          'VALIDATION_ERROR',
          'nothing to change: send name, requestsPerMinute, expiresAt, spendingLimit, spendingLimitPeriod, maxConcurrent or maxPriority',
        );
      }
      if (typeof changes.expiresAt === 'string') changes.expiresAt = futureTime(changes.expiresAt, clock.now());
      await liveKey(owner, id);
      const updated = await store.apiKeys.update(id, changes);
      if (!updated) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      return toApiKeyView(updated);
    },

    /**
     * A new raw key with the old one's account, name, scopes, limits (scheduling ones too) and expiry. The old key
     * keeps working for `graceSeconds` (default 24 h; never past its own expiry), or is
     * revoked at once with 0. While it lasts it counts as a live key.
     */
    async rotate(
      owner: Owner,
      id: string,
      graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS,
    ): Promise<CreatedKey & { previous: ApiKeyView }> {
      const old = await liveKey(owner, id);
      const now = clock.now();
      const raw = `mak_${randomBase62(43)}`;
      const next: ApiKeyRecord = {
        ...old,
        id: sortableId('key', now),
        hash: hashApiKey(raw),
        preview: `${raw.slice(0, 8)}...${raw.slice(-4)}`,
        createdAt: isoTime(now),
        rotatedFrom: old.id,
      };
      delete next.lastUsedAt;
      const graceEnd = isoTime(now + graceSeconds * 1000);
      const end =
        graceSeconds === 0
          ? { revokedAt: isoTime(now) }
          : { expiresAt: old.expiresAt !== undefined && old.expiresAt < graceEnd ? old.expiresAt : graceEnd };
      const stored = await store.apiKeys.rotate(id, next, end, limits());
      if (!stored) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      const previous: ApiKeyRecord = end.revokedAt
        ? { ...old, revokedAt: end.revokedAt }
        : { ...old, expiresAt: end.expiresAt };
      return { apiKey: toApiKeyView(stored), raw, previous: toApiKeyView(previous) };
    },

    /** The live key a raw key names, if any: not revoked, not expired. Lookup is by hash, so no raw key is compared. */
    async resolve(raw: string): Promise<ApiKeyRecord | undefined> {
      const key = await store.apiKeys.getLiveByHash(hashApiKey(raw));
      return key && !expired(key, clock.now()) ? key : undefined;
    },

    /**
     * Notes that a key authenticated a request: lastUsedAt is written at most once a minute per
     * key, in the background; a failed write is logged and never fails the request.
     */
    markUsed(key: ApiKeyRecord): void {
      const now = clock.now();
      const last = touched.get(key.id);
      if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
      if (last === undefined && key.lastUsedAt !== undefined && now - Date.parse(key.lastUsedAt) < TOUCH_INTERVAL_MS)
        return;
      if (touched.size > 100_000) touched.clear(); // bound memory; a forgotten key is written once more
      touched.set(key.id, now);
      store.apiKeys
        .touch(key.id, isoTime(now))
        .catch((err: Error) => log(`api keys: lastUsedAt of ${key.id} not written (${err.message})`));
    },

    /** Counts one request of a key with requestsPerMinute in its current fixed window. */
    async countRequest(keyId: string, limit: number): Promise<KeyRateState> {
      const now = clock.now();
      const windowStart = now - (now % WINDOW_MS);
      const count = await store.requestWindows.hit(keyId, windowStart);
      return {
        limit,
        remaining: Math.max(0, limit - count),
        resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
        allowed: count <= limit,
      };
    },
  };
}
