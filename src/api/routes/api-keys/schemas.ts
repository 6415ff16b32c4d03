import { z } from 'zod';
import { parseUsd } from '../../../domain/money.js';
import { MAX_CONCURRENT_BOUND, PRIORITY } from '../../../domain/scheduling.js';
import { Timestamp, Usd } from '../../common-schemas.js';

/**
 * The API key resource (docs/api/keys-and-scopes.md#api-keys); never the raw key, which only the create answer carries.
 */
export const ApiKey = z.object({
  id: z.string(),
  keyPreview: z.string(),
  userId: z.string(),
  name: z.string().optional(),
  scopes: z.array(z.string()),
  spendingLimit: Usd.optional(),
  spendingLimitPeriod: z.enum(['day', 'week', 'month']),
  createdAt: Timestamp,
  requestsPerMinute: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('requests per fixed 60 s window; absent: no limit'),
  expiresAt: Timestamp.optional().describe('from then on the key is refused (401 UNAUTHORIZED)'),
  lastUsedAt: Timestamp.optional().describe(
    'when the key last authenticated a request (written at most once a minute)',
  ),
  rotatedFrom: z.string().optional().describe('the key this one replaced'),
  maxConcurrent: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe("at most this many items of the key's tasks run at once, fleet-wide; null: no bound"),
  maxPriority: z
    .number()
    .int()
    .describe(`the highest priority a task created with this key may ask for (${PRIORITY.default} unless set)`),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** spendingLimit of a key in a body: decimal USD text (the key service turns it into micro-USD). */
export const SpendingLimit = z
  .string()
  .refine((value) => parseUsd(value) !== null, 'a decimal USD amount such as "25" or "0.5"');

/** spendingLimitPeriod of a key: the calendar period its spending limit counts over. */
export const SpendingLimitPeriod = z.enum(['day', 'week', 'month']);

/** requestsPerMinute of a key: a positive integer (null in a PATCH removes the limit). */
export const RequestsPerMinute = z.number().int().min(1).max(1_000_000).describe('requests per fixed 60 s window');

/** expiresAt of a key: an ISO 8601 date-time in the future (checked by the service). */
export const ExpiresAt = z.iso
  .datetime({ offset: true })
  .describe('ISO 8601 date-time in the future; the key is refused from then on');

/** maxConcurrent of a key: a positive integer (null removes the bound). */
export const MaxConcurrent = z
  .number()
  .int()
  .min(1)
  .max(MAX_CONCURRENT_BOUND)
  .describe("at most this many items of the key's tasks run at once, fleet-wide");

/** maxPriority of a key: the highest task priority it allows (null: back to the default). */
export const MaxPriority = z
  .number()
  .int()
  .min(PRIORITY.min)
  .max(PRIORITY.max)
  .describe(
    `the highest priority a task created with this key may ask for (${PRIORITY.min}..${PRIORITY.max}; default ${PRIORITY.default})`,
  );
