/** How long a count of pending tasks is used, grown by the creates since, while it is far from the bound. */
const FRESH_MS = 1000;
/** Below this share of the bound, a count up to FRESH_MS old (plus the creates since) is close enough. */
const FAR_FROM_BOUND = 0.9;

/**
 * The number of pending tasks a create checks `limits.maxPendingTasks` against, without counting
 * them for every create: a count is read at most once a second while it stays under 90 % of the
 * bound, and the creates made here since are added to it (settlements are not taken off, so it
 * only errs high). Near the bound every create reads the count again, so the bound itself is
 * exact. On PostgreSQL a count over 100,000 pending tasks takes tens of milliseconds.
 */
export function createPendingGauge(count: () => Promise<number>, now: () => number) {
  let last: { value: number; at: number } | undefined;
  let since = 0;
  return {
    async read(bound: number): Promise<number> {
      if (last && now() - last.at < FRESH_MS && last.value + since < bound * FAR_FROM_BOUND) return last.value + since;
      const at = now();
      const value = await count();
      last = { value, at };
      since = 0;
      return value;
    },
    /** A task was created here (after its count was read). */
    created(): void {
      since += 1;
    },
  };
}
