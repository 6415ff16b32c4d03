import { z } from 'zod';

// How work runs: the lanes and retries (work), the create limits, sync waits and status-stream heartbeats.

export const WorkSection = z.strictObject({
  defaultConcurrency: z.number().int().min(1).max(64),
  lanes: z.record(
    z.string(),
    z
      .number()
      .int()
      .min(1)
      .max(64)
      .describe(
        "Jobs at once in this lane (1..64), instead of its providers' concurrency summed or defaultConcurrency; a reload applies it to the lane at once.",
      ),
  ),
  shutdownGraceMs: z.number().int().min(0).max(600_000),
  retryBaseMs: z.number().int().min(0).max(60_000),
  sweepIntervalMs: z.number().int().min(1000),
  leaseMs: z
    .number()
    .int()
    .min(300)
    .max(3_600_000)
    .describe(
      "PostgreSQL: milliseconds a worker's claim on a task lasts unless renewed (every third of it); a dead worker's tasks are claimed again after it.",
    ),
});

export const LimitsSection = z.strictObject({
  requestsPerMinutePerKey: z.number().int().min(1).nullable(),
  maxPendingTasks: z.number().int().min(1),
  /**
   * Creates whose lane has more than this many seconds of work queued ahead (estimated from recent item times) get 429
   * with Retry-After; null = no bound.
   */
  maxQueueDelaySeconds: z.number().int().min(1).nullable(),
});

export const SyncSection = z.strictObject({ timeoutMs: z.number().int().min(0).max(600_000) });

/**
 * Live status streams (GET /tasks/{id}/events): how often an idle stream sends a `: ping` comment, so proxies keep it
 * open.
 */
export const TaskEventsSection = z
  .strictObject({ heartbeatMs: z.number().int().min(10).max(600_000).default(15_000) })
  .default({ heartbeatMs: 15_000 });
