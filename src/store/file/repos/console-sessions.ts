import type { ConsoleSessionRepo } from '../../repos/console-sessions.js';
import type { JournalEngine } from '../journal/journal-engine.js';

/**
 * Console links and sessions over the journal. One process owns the data dir, so a link's check
 * and its use happen in one synchronous step before the write: two visits cannot both use it.
 */
export function createConsoleSessionRepo(engine: JournalEngine): ConsoleSessionRepo {
  const { state } = engine;
  /** Links being used right now: their write is in flight, so a second visit meanwhile loses too. */
  const using = new Set<string>();
  const byHash = (hash: string) => {
    const id = state.consoleSessionByHash.get(hash);
    return id === undefined ? undefined : state.consoleSessions.get(id);
  };
  return {
    async put(record) {
      await engine.commit('consoleSession.put', record);
    },
    async consume(hash, now) {
      const link = byHash(hash);
      if (link?.kind !== 'link' || link.usedAt || link.revokedAt || link.expiresAt <= now || using.has(link.id))
        return undefined;
      using.add(link.id);
      try {
        await engine.commit('consoleSession.use', { id: link.id, at: now });
      } finally {
        using.delete(link.id);
      }
      return { ...link, usedAt: now };
    },
    async getByHash(hash) {
      return byHash(hash);
    },
    async list(now) {
      return state.consoleSessions.capture().filter((record) => record.expiresAt > now);
    },
    async revoke(id, at) {
      const record = state.consoleSessions.get(id);
      if (!record || record.revokedAt) return undefined;
      await engine.commit('consoleSession.revoke', { id, at });
      return { ...record, revokedAt: at };
    },
    async deleteByAccount(accountId) {
      const count = state.consoleSessionsByAccount.ids(accountId).size;
      if (count > 0) await engine.commit('consoleSession.deleteAccount', { accountId });
      return count;
    },
    async purgeExpired(now) {
      let expired = 0;
      for (const record of state.consoleSessions.values()) if (record.expiresAt <= now) expired++;
      if (expired > 0) await engine.commit('consoleSession.purge', { before: now });
      return expired;
    },
  };
}
