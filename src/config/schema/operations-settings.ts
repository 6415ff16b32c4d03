import { z } from 'zod';
import { RETENTION_DEFAULTS } from '../../domain/retention.js';
import { Retention } from './setting-fields.js';

// Running the service: budget alerts (billing), the log, GET /metrics and retention.

/**
 * Budget alerts: the percentages of an account's monthly budget and of a key's spending limit that send
 * `billing.threshold_reached` once per period.
 */
export const BillingSection = z
  .strictObject({
    alerts: z
      .strictObject({ thresholds: z.array(z.number().int().min(1).max(1000)).max(20).default([50, 80, 100]) })
      .default({ thresholds: [50, 80, 100] }),
  })
  .default({ alerts: { thresholds: [50, 80, 100] } });

/** The service log (pino): its level (a reload applies it) and its form (read at start). */
export const LogSection = z
  .strictObject({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** auto: pretty lines when stdout is a terminal, JSON lines otherwise. */
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .default({ level: 'info', format: 'auto' });

/** GET /metrics: on or off, and the bearer token it asks for (null: none). */
export const MetricsSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    token: z.string().min(16, 'at least 16 characters').nullable().default(null),
  })
  .default({ enabled: true, token: null });

/**
 * How long what ages out is kept (docs/data-lifecycle.md#retention): each a duration (30d, 12h,
 * 90m) or "off" (kept forever). The sweep (work.sweepIntervalMs) removes what is older, in
 * batches, in one process of a fleet; outputs, uploads and tasks may be set per account.
 */
export const RetentionSection = z
  .strictObject({
    outputs: Retention(
      'outputs',
      'How long a settled task keeps its outputs (images, videos, thumbnails) and text (request, result, webhook payloads), from its settlement; then it reads as deleted (dataRemoved: true). At least 1h; per account: imgtask accounts set --retain-outputs.',
    ),
    uploads: Retention(
      'uploads',
      'How long an uploaded image (POST /image/upload) is kept, from its upload. At least 1h; per account: imgtask accounts set --retain-uploads.',
    ),
    tasks: Retention(
      'tasks',
      "How long a settled task's record is kept at all, from its settlement (its data is removed with it); the ledger keeps its charge. At least 31d, so the current month's spend and usage stay whole; per account: imgtask accounts set --retain-tasks.",
    ),
    deliveries: Retention(
      'deliveries',
      "How long a webhook delivery's log (attempts) and its event's payload are kept once the delivery is done (delivered or failed), from its last attempt. At least 1h.",
    ),
    consoleSessions: Retention(
      'consoleSessions',
      'How long an expired console session or sign-in link is kept after it expired. At least 1h.',
    ),
  })
  .default(RETENTION_DEFAULTS);
