import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { ConfigSource } from '../config/source.js';
import type { ApiEnv } from './api-deps.js';

/**
 * What a cross-origin caller may send: every method of the API, its bearer credential, JSON bodies, an idempotency key,
 * a stream's resume point.
 */
const ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'Cancel-After'];
/** Response headers a browser script may read beyond the safelisted ones. */
const EXPOSE_HEADERS = [
  'x-request-id',
  'retry-after',
  'idempotent-replayed',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
];
/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS from `cors.origins`, read per request so a config reload applies at once. With no
 * origins (the default) it adds nothing and does nothing. Otherwise hono's cors middleware
 * answers preflights (OPTIONS) itself with 204, before any route (so without auth and never
 * NOT_FOUND), and adds the allow-origin header to every answer, errors included, for a
 * listed origin only. Credentials are bearer headers, not cookies: no allow-credentials.
 */
export function corsMiddleware(config: Pick<ConfigSource, 'current'>): MiddlewareHandler<ApiEnv> {
  let built: { origins: readonly string[]; handler: MiddlewareHandler } | undefined;
  return (c, next) => {
    const { origins } = config.current().cors;
    if (origins.length === 0) return next();
    if (built?.origins !== origins) {
      const handler = cors({
        origin: origins.includes('*') ? '*' : [...origins],
        allowMethods: ALLOW_METHODS,
        allowHeaders: ALLOW_HEADERS,
        exposeHeaders: EXPOSE_HEADERS,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      });
      built = { origins, handler };
    }
    return built.handler(c, next) as Promise<Response | undefined>;
  };
}
