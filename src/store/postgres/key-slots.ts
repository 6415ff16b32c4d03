import type { KeySlotRepo, StoreSignals } from '../repos/shared-queue.js';

/** Advisory lock keys of key slots start here, clear of the fixed locks (sweep, dispatch, migrations). */
const SLOT_LOCKS = 2 ** 41;
/** Slots per key that are locked; a cap at or past this is no bound worth a lock. */
const MAX_SLOTS = 256;

/** FNV-1a of a key id: two keys sharing a hash share slots (stricter, never looser). */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * An API key's maxConcurrent across the processes sharing the database: slot n of key k is the
 * session advisory lock SLOT_LOCKS + hash(k) × 256 + n on the dedicated signals connection. A
 * process that dies, or whose connection breaks, gives its slots back with its session.
 */
export function createPgKeySlots(signals: StoreSignals): KeySlotRepo {
  return {
    async acquire(key, cap) {
      if (cap >= MAX_SLOTS) return async () => {};
      const base = SLOT_LOCKS + hash32(key) * MAX_SLOTS;
      const locked = await signals.tryLockAny(Array.from({ length: cap }, (_, slot) => base + slot));
      if (locked === null) return null;
      let given: Promise<void> | undefined;
      return () => {
        given ??= signals.unlock(locked).catch(() => undefined);
        return given;
      };
    },
  };
}
