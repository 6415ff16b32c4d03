import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import { parseCompoundDuration } from '../domain/time.js';

/** The shortest and longest deadline a create may ask for (docs/api/tasks.md#deadlines-cancel-after). */
export const CANCEL_AFTER_MS = { min: 1000, max: 24 * 3_600_000 } as const;

/**
 * The create's `Cancel-After` header as milliseconds (undefined without one): a duration such as
 * 15s, 5m or 1h30m, from 1 s to 24 h. Anything else is VALIDATION_ERROR naming the header, before
 * anything is created.
 */
export function cancelAfterOf(c: Context): number | undefined {
  const text = c.req.header('cancel-after');
  if (text === undefined) return undefined;
  const ms = parseCompoundDuration(text);
  if (ms === null) throw new AppError('VALIDATION_ERROR', `Cancel-After: "${text.slice(0, 64)}" is not a duration such as 30s, 5m or 1h30m`);
  if (ms < CANCEL_AFTER_MS.min || ms > CANCEL_AFTER_MS.max) throw new AppError('VALIDATION_ERROR', `Cancel-After: ${text.slice(0, 64)} is out of range: from 1s to 24h`);
  return ms;
}
