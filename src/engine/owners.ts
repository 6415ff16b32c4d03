import type { Store } from '../store/store-contract.js';

/** How long an account's weight and a key's maxConcurrent are kept before they are read again. */
const TTL_MS = 1000;

/**
 * What a task's place in its lane needs from its owners, read from the store and kept for a
 * second: a burst of one account's tasks costs one read, and a change (imgtask accounts set,
 * PATCH /api-key) applies to the tasks that start from a second later.
 */
export function createOwnerLookup(store: Pick<Store, 'accounts' | 'apiKeys'>, now: () => number = Date.now) {
  const weights = new Map<string, { value: number; at: number }>();
  const caps = new Map<string, { value: number | undefined; at: number }>();
  async function cached<T>(map: Map<string, { value: T; at: number }>, id: string, read: () => Promise<T>): Promise<T> {
    const hit = map.get(id);
    if (hit && now() - hit.at < TTL_MS) return hit.value;
    const value = await read();
    // Bounded: an idle account's entry is only dropped with the rest.
    if (map.size > 10_000) map.clear();
    map.set(id, { value, at: now() });
    return value;
  }
  return async (task: {
    accountId: string;
    apiKeyId: string | null;
  }): Promise<{ weight: number; maxConcurrent?: number }> => {
    const weight = await cached(
      weights,
      task.accountId,
      async () => (await store.accounts.get(task.accountId))?.weight ?? 1,
    );
    const key = task.apiKeyId;
    const maxConcurrent =
      key === null ? undefined : await cached(caps, key, async () => (await store.apiKeys.get(key))?.maxConcurrent);
    return maxConcurrent === undefined ? { weight } : { weight, maxConcurrent };
  };
}
