import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, isAppError } from '../domain/errors.js';
import type { ApiEnv } from './types.js';

/** The one error handler: AppError → flat body (and its headers); anything else → logged, 500 without internals. */
export function createErrorHandler(log: (message: string) => void) {
  return (err: Error, c: Context<ApiEnv>): Response => {
    if (isAppError(err)) return c.json(err.toBody(), err.status as 400, err.headers);
    if (err instanceof HTTPException) return err.getResponse();
    const requestId = c.get('requestId') ?? 'unknown';
    log(`request ${requestId} ${c.req.method} ${c.req.path} failed: ${err.stack ?? err.message}`);
    const body = new AppError('INTERNAL_SERVER_ERROR', `internal error (request id ${requestId})`).toBody();
    return c.json(body, 500);
  };
}

export const notFound = (c: Context): Response => c.json(new AppError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`).toBody(), 404);
