import { hash } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { randomBase62, sortableId } from '../domain/ids.js';
import { formatUsd, type Micros } from '../domain/money.js';
import { API_KEY_SCOPES, isTokenOnlyScope } from '../domain/scopes.js';
import { isoTime } from '../domain/time.js';
import type { ApiKeyRecord, SpendingLimitPeriod } from '../store/records.js';
import type { Store } from '../store/types.js';
import { type Clock, type Owner, ownedBy } from './ports.js';

/** SPEC part 2: an account can hold at most 100 live keys. */
const MAX_LIVE_KEYS = 100;

// One-shot hashing: no Hash object per request.
const hashApiKey = (raw: string): string => hash('sha256', raw, 'hex');

export interface ApiKeyView {
  id: string;
  keyPreview: string;
  userId: string;
  name?: string;
  scopes: string[];
  spendingLimit?: string;
  spendingLimitPeriod: SpendingLimitPeriod;
  createdAt: string;
}

export function toApiKeyView(key: ApiKeyRecord): ApiKeyView {
  const view: ApiKeyView = { id: key.id, keyPreview: key.preview, userId: key.accountId, scopes: key.scopes, spendingLimitPeriod: key.spendingLimitPeriod, createdAt: key.createdAt };
  if (key.name !== undefined) view.name = key.name;
  if (key.spendingLimit !== undefined) view.spendingLimit = formatUsd(key.spendingLimit);
  return view;
}

export interface CreateKeyInput {
  accountId: string;
  name?: string;
  /** Defaults to every scope the creator may grant. */
  scopes?: string[];
  /**
   * The scopes of the credential creating the key: a key may hold only scopes its creator holds.
   * Omitted for the operator (CLI, admin socket), who may grant every API-key scope.
   */
  creatorScopes?: readonly string[];
  spendingLimit?: Micros;
  spendingLimitPeriod?: SpendingLimitPeriod;
}

/**
 * The scopes a new key gets. It may hold only API-key scopes (never `keys` or `manage`) that its
 * creator holds: asking for more is SCOPE_ESCALATION naming the excess and what may be granted;
 * asking for none gets everything the creator may grant, never more.
 */
function grantedScopes(input: CreateKeyInput): string[] {
  const grantable: string[] = API_KEY_SCOPES.filter((scope) => !input.creatorScopes || input.creatorScopes.includes(scope));
  const requested = [...new Set(input.scopes ?? grantable)];
  const tokenOnly = requested.filter(isTokenOnlyScope);
  if (tokenOnly.length > 0) {
    throw new AppError('SCOPE_ESCALATION', `an API key cannot hold the scope ${tokenOnly.join(', ')}; such actions are done with an access token`, {
      scopes: { requested: tokenOnly, allowed: grantable },
    });
  }
  const beyond = requested.filter((scope) => !grantable.includes(scope));
  if (beyond.length > 0) {
    throw new AppError('SCOPE_ESCALATION', `requested scopes exceed the caller's: ${beyond.join(', ')}`, { scopes: { requested: beyond, allowed: grantable } });
  }
  if (requested.length === 0) throw new AppError('VALIDATION_ERROR', 'the key would hold no scope: the credential creating it holds none of the API-key scopes');
  return requested;
}

export function createApiKeyService(store: Store, clock: Clock) {
  return {
    /** Makes a key; the raw key is returned here once and never stored. */
    async create(input: CreateKeyInput): Promise<{ apiKey: ApiKeyView; raw: string }> {
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
      if (input.spendingLimit !== undefined) record.spendingLimit = input.spendingLimit;
      const stored = await store.apiKeys.create(record, { maxLive: MAX_LIVE_KEYS });
      return { apiKey: toApiKeyView(stored), raw };
    },

    async list(accountId: string): Promise<ApiKeyView[]> {
      return (await store.apiKeys.listLive(accountId)).map(toApiKeyView);
    },

    /** A live key of this account; another account's or a deleted key is API_KEY_NOT_FOUND (its message stays out of API answers, SPEC part 7). */
    async get(accountId: string, id: string): Promise<ApiKeyView> {
      const key = await store.apiKeys.get(id);
      if (!key || key.revokedAt || key.accountId !== accountId) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      return toApiKeyView(key);
    },

    async revoke(owner: Owner, id: string): Promise<ApiKeyView> {
      const key = await store.apiKeys.get(id);
      if (!key || key.revokedAt || !ownedBy(owner, key.accountId)) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      const revoked = await store.apiKeys.revoke(id, isoTime(clock.now()));
      if (!revoked) throw new AppError('API_KEY_NOT_FOUND', `no API key ${id}`);
      return toApiKeyView(revoked);
    },

    /** The live key a raw key names, if any. Lookup is by hash, so no raw key is compared. */
    async resolve(raw: string): Promise<ApiKeyRecord | undefined> {
      return store.apiKeys.getLiveByHash(hashApiKey(raw));
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
