import type { ConfigSource } from '../config/source.js';
import { AppError } from '../domain/errors.js';
import type { Clock } from '../services/ports.js';

/** What this process's lanes tell of their backlog (the lanes and the runner implement it). */
export interface LaneBacklog {
  /** How long, in ms, an item added to `lane` now would wait for a slot (an estimate from recent item times). */
  queueDelayMs(lane: string): number;
}

/** Back-pressure on creates: a token bucket per credential, a bound on pending work and on queue delay. */
export interface LoadLimits {
  /** `limits.maxPendingTasks` in force. */
  maxPendingTasks(): number;
  /** Refuses (429) a credential past its token bucket, or the service past its pending bound. */
  check(credentialId: string, pendingTasks: number): void;
  /**
   * Refuses new work when its lane's backlog would keep it waiting past
   * `limits.maxQueueDelaySeconds` (null: no bound), with Retry-After: the seconds until the
   * estimated wait is back under the bound. `delayMs` gives the estimate; one that throws
   * (a task with no lane) is not refused here, so its create fails as before (ENQUEUE_FAILED).
   */
  checkQueueDelay(delayMs: () => number): void;
}

/**
 * Back-pressure before anything is reserved: a per-credential token bucket, a bound on
 * pending work, and a bound on how long new work would queue. Past any, 429
 * RATE_LIMIT_EXCEEDED (not the spending limit's code), so the service degrades instead of
 * falling over. Only the queue-delay refusal carries Retry-After (ours: the interface's 429 has
 * none): it is the one with an estimate of when a retry would pass (docs/api/limits.md#billing-and-limits).
 */
export function createLoadLimits(config: Pick<ConfigSource, 'current'>, clock: Clock): LoadLimits {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** `limits.maxPendingTasks` in force. */
    maxPendingTasks: (): number => config.current().limits.maxPendingTasks,

    check(credentialId: string, pendingTasks: number): void {
      const { requestsPerMinutePerKey: rate, maxPendingTasks } = config.current().limits;
      if (pendingTasks >= maxPendingTasks) {
        throw new AppError('RATE_LIMIT_EXCEEDED', `the service has ${pendingTasks} tasks pending; retry shortly`);
      }
      if (rate === null) return;
      const now = clock.now();
      const bucket = buckets.get(credentialId) ?? { tokens: rate, at: now };
      bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 60_000) * rate);
      bucket.at = now;
      if (bucket.tokens < 1) {
        buckets.set(credentialId, bucket);
        throw new AppError('RATE_LIMIT_EXCEEDED', `at most ${rate} create calls per minute per key; retry shortly`);
      }
      bucket.tokens -= 1;
      buckets.set(credentialId, bucket);
      if (buckets.size > 100_000) buckets.clear(); // bound memory; a cleared bucket starts full
    },

    /**
     * Refuses new work when its lane's backlog would keep it waiting past
     * `limits.maxQueueDelaySeconds` (null: no bound), with Retry-After: the seconds until the
     * estimated wait is back under the bound. `delayMs` gives the estimate; one that throws
     * (a task with no lane) is not refused here, so its create fails as before (ENQUEUE_FAILED).
     */
    checkQueueDelay(delayMs: () => number): void {
      const max = config.current().limits.maxQueueDelaySeconds;
      if (max === null) return;
      let delay: number;
      try {
        delay = delayMs();
      } catch {
        return;
      }
      if (!(delay > max * 1000)) return;
      const retryAfter = Math.max(1, Math.ceil(delay / 1000 - max));
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `about ${Math.ceil(delay / 1000)} s of work is queued ahead of this task (at most ${max} s is taken); retry in ${retryAfter} s`,
        {
          headers: { 'retry-after': String(retryAfter) },
        },
      );
    },
  };
}
