import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import { parseCancelAfter } from '../domain/scheduling.js';

/**
 * The create's `Cancel-After` header as milliseconds (undefined without one): a duration such as
 * 15s, 5m or 1h30m, from 1 s to 24 h (docs/api/tasks.md#deadlines-cancel-after). Anything else is
 * VALIDATION_ERROR naming the header, before anything is created.
 */
export function cancelAfterOf(c: Context): number | undefined {
  const text = c.req.header('cancel-after');
  if (text === undefined) return undefined;
  const parsed = parseCancelAfter(text);
  if ('problem' in parsed) throw new AppError('VALIDATION_ERROR', `Cancel-After: ${parsed.problem}`);
  return parsed.ms;
}
