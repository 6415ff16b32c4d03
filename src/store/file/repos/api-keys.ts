import { AppError } from '../../../domain/errors.js';
import type { ApiKeyRecord } from '../../records/api-keys.js';
import type { ApiKeyRepo, KeyLimits, RequestWindowRepo } from '../../repos/api-keys.js';
import type { JournalEngine } from '../journal/journal-engine.js';
import type { State } from '../state.js';

/** The account's live keys: not revoked (the index), and not expired at `now` when given. */
function liveCount(state: State, accountId: string, now: string | undefined, except?: string): number {
  const ids = state.liveKeysByAccount.ids(accountId);
  let count = 0;
  for (const id of ids) {
    if (id === except) continue;
    const expiresAt = now === undefined ? undefined : state.apiKeys.get(id)!.expiresAt;
    if (expiresAt === undefined || expiresAt > now!) count += 1;
  }
  return count;
}

function checkRoom(state: State, accountId: string, { maxLive, now }: KeyLimits, except?: string): void {
  if (!state.accounts.get(accountId)) throw new AppError('VALIDATION_ERROR', `no account ${accountId}`);
  if (liveCount(state, accountId, now, except) >= maxLive) {
    throw new AppError('API_KEY_LIMIT_REACHED', `an account can hold at most ${maxLive} live API keys`);
  }
}

const isLive = (key: ApiKeyRecord | undefined, now?: string): key is ApiKeyRecord =>
  key !== undefined && !key.revokedAt && (now === undefined || key.expiresAt === undefined || key.expiresAt > now);

export function createApiKeyRepo(engine: JournalEngine): ApiKeyRepo {
  const { state } = engine;
  return {
    async create(key, limits) {
      checkRoom(state, key.accountId, limits);
      await engine.commit('apiKey.create', key);
      return state.apiKeys.get(key.id)!;
    },
    async revoke(id, at) {
      const key = state.apiKeys.get(id);
      if (!key || key.revokedAt) return undefined;
      await engine.commit('apiKey.revoke', { id, at });
      return state.apiKeys.get(id);
    },
    async get(id) {
      return state.apiKeys.get(id);
    },
    async getLiveByHash(hash) {
      const id = state.liveKeyByHash.get(hash);
      return id === undefined ? undefined : state.apiKeys.get(id);
    },
    async listLive(accountId) {
      return Array.from(state.liveKeysByAccount.ids(accountId), (id) => state.apiKeys.get(id)!);
    },
    async forgetNames(accountId) {
      const named = Array.from(state.apiKeys.values()).filter(
        (key) => key.accountId === accountId && key.name !== undefined,
      );
      for (const key of named) await engine.commit('apiKey.update', { id: key.id, changes: { name: null } });
      return named.length;
    },
    async update(id, changes) {
      if (!isLive(state.apiKeys.get(id))) return undefined;
      await engine.commit('apiKey.update', { id, changes });
      return state.apiKeys.get(id);
    },
    async touch(id, at) {
      const key = state.apiKeys.get(id);
      if (!key || (key.lastUsedAt !== undefined && key.lastUsedAt >= at)) return;
      await engine.commit('apiKey.touch', { id, at });
    },
    async rotate(id, next, end, limits) {
      const old = state.apiKeys.get(id);
      if (!isLive(old, limits.now)) return undefined;
      checkRoom(state, next.accountId, limits, end.revokedAt ? id : undefined);
      await engine.commit('apiKey.rotate', { id, next, ...end });
      return state.apiKeys.get(next.id)!;
    },
  };
}

/**
 * Counters of the file store: one process owns the data dir, so memory is the truth. Only each key's current window is
 * kept.
 */
export function createMemoryRequestWindows(): RequestWindowRepo {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(keyId, windowStart) {
      const current = windows.get(keyId);
      if (current && current.start === windowStart) {
        current.count += 1;
        return current.count;
      }
      windows.set(keyId, { start: windowStart, count: 1 });
      return 1;
    },
  };
}
