import type { IdempotencyRecord } from '../../records/idempotency.js';
import type { IdempotencyRepo } from '../../repos/idempotency.js';
import type { JournalEngine } from '../journal/journal-engine.js';

/**
 * Idempotency-Key records over the journal. Only answers are journaled: a claim lives in this
 * process's memory (one process owns a data dir), so a claim whose process stops is gone with
 * it and the key can be used again at once after a restart.
 */
export function createIdempotencyRepo(engine: JournalEngine): IdempotencyRepo {
  const { state } = engine;
  const claims = new Map<string, IdempotencyRecord>();
  const live = (id: string, now: string): IdempotencyRecord | undefined => {
    const claim = claims.get(id);
    if (claim && claim.expiresAt > now) return { ...claim };
    const answered = state.idempotencyKeys.get(id);
    return answered && answered.expiresAt > now ? answered : undefined;
  };
  const holds = (id: string, claim: string) => claims.get(id)?.claim === claim;
  return {
    async claim(record, now) {
      // The check and the claim are one synchronous step: two claims cannot both win.
      const existing = live(record.id, now);
      if (existing) return { claimed: false, record: existing };
      claims.set(record.id, { ...record });
      return { claimed: true };
    },
    async renew(id, claim, expiresAt) {
      const held = claims.get(id);
      if (held?.claim !== claim) return false;
      claims.set(id, { ...held, expiresAt });
      return true;
    },
    async complete(record, claim) {
      if (!holds(record.id, claim)) return false;
      try {
        await engine.commit('idempotency.put', record);
      } finally {
        if (holds(record.id, claim)) claims.delete(record.id);
      }
      return true;
    },
    async release(id, claim) {
      if (holds(id, claim)) claims.delete(id);
    },
    async get(id, now) {
      return live(id, now);
    },
    async deleteByAccount(accountId) {
      const ids = new Set(state.idempotencyByAccount.ids(accountId));
      for (const [id, claim] of claims) {
        if (claim.accountId !== accountId) continue;
        claims.delete(id);
        ids.add(id);
      }
      if (state.idempotencyByAccount.ids(accountId).size > 0)
        await engine.commit('idempotency.deleteAccount', { accountId });
      return ids.size;
    },
    async purgeExpired(now) {
      for (const [id, claim] of claims) if (claim.expiresAt <= now) claims.delete(id);
      for (const record of state.idempotencyKeys.values()) {
        if (record.expiresAt <= now) {
          await engine.commit('idempotency.purge', { before: now });
          return;
        }
      }
    },
  };
}
