import { AppError } from '../../domain/errors.js';
import type { JournalEngine } from '../journal-engine.js';
import type { ApiKeyRepo } from '../types.js';

export function createApiKeyRepo(engine: JournalEngine): ApiKeyRepo {
  const { state } = engine;
  return {
    async create(key, { maxLive }) {
      if (!state.accounts.get(key.accountId)) throw new AppError('VALIDATION_ERROR', `no account ${key.accountId}`);
      if (state.liveKeysByAccount.ids(key.accountId).size >= maxLive) {
        throw new AppError('API_KEY_LIMIT_REACHED', `an account can hold at most ${maxLive} live API keys`);
      }
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
  };
}
