import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, isAppError } from '../domain/errors.js';
import { asStorageFull } from '../domain/storage-full.js';
import type { ApiEnv } from './api-deps.js';
import { cutShortStatus, RequestCutShortError } from './cut-short.js';

/**
 * The one error handler: AppError → flat body (and its headers); a request whose client went
 * away before its body arrived → 408 or 499, for the access line and the metrics only (nobody
 * reads it); anything else → 500 without internals, the error kept for the request's access
 * line, which logs it with its stack.
 */
export function createErrorHandler() {
  return (err: Error, c: Context<ApiEnv>): Response => {
    if (isAppError(err)) return c.json(err.toBody(), err.status as 400, err.headers);
    if (err instanceof HTTPException) return err.getResponse();
    // A write refused for lack of space that no layer below named (PostgreSQL's disk_full, an ENOSPC): 507 with
    // Retry-After, not a fault.
    const full = asStorageFull(err);
    if (full) return c.json(full.toBody(), full.status as 400, full.headers);
    const cutShort = cutShortStatus(c.env?.incoming) ?? (err instanceof RequestCutShortError ? 499 : null);
    if (cutShort !== null) return new Response(null, { status: cutShort });
    c.set('fault', err);
    const requestId = c.get('requestId') ?? 'unknown';
    const body = new AppError('INTERNAL_SERVER_ERROR', `internal error (request id ${requestId})`).toBody();
    return c.json(body, 500);
  };
}

export const notFound = (c: Context): Response =>
  c.json(new AppError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`).toBody(), 404);
