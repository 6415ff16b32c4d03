import type { SecretRepo } from '../../repos/secrets.js';
import type { JournalEngine } from '../journal/journal-engine.js';

export function createSecretRepo(engine: JournalEngine): SecretRepo {
  const { state } = engine;
  return {
    async put(secret) {
      await engine.commit('secret.put', secret);
    },
    async delete(id) {
      if (!state.secrets.get(id)) return false;
      await engine.commit('secret.delete', { id });
      return true;
    },
    async get(id) {
      return state.secrets.get(id);
    },
    async list() {
      return state.secrets.capture();
    },
  };
}
