import type { ConfigSource } from '../config/source.js';
import { AppError } from '../domain/errors.js';
import type { Clock } from './ports.js';

/**
 * Back-pressure before anything is reserved: a per-credential token bucket and a bound on
 * pending work. Past either, 429 RATE_LIMIT_EXCEEDED (not the spending limit's code; no
 * Retry-After, per SPEC part 7), so the service degrades instead of falling over.
 */
export function createLoadLimits(config: Pick<ConfigSource, 'current'>, clock: Clock) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
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
  };
}

export type LoadLimits = ReturnType<typeof createLoadLimits>;
