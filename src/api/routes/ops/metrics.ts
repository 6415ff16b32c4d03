import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { AppError } from '../../../domain/errors.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Compares the bearer sent with the configured token in constant time (over their digests, so the length does not show
 * either).
 */
function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = header ? BEARER.exec(header)?.[1] : undefined;
  return timingSafeEqual(digest(sent ?? ''), digest(token)) && sent !== undefined;
}

/**
 * `GET /metrics`: the Prometheus text format. Public unless `metrics.token` is set, then only
 * with that bearer token; 404 when `metrics.enabled` is off. Both read per request, so a
 * reload applies at once.
 */
export function registerMetrics(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/metrics',
      summary:
        'Operations: the service and process metrics in the Prometheus text format (a bearer token when metrics.token is set)',
      family: 'resource',
      status: 200,
      errors: ['UNAUTHORIZED', 'NOT_FOUND'],
      produces: 'text/plain; version=0.0.4; charset=utf-8',
    },
    async (c) => {
      const { enabled, token } = deps.config.current().metrics;
      if (!enabled) throw new AppError('NOT_FOUND', 'metrics are turned off (metrics.enabled)');
      if (token !== null && !bearerMatches(c.req.header('authorization'), token)) {
        throw new AppError('UNAUTHORIZED', 'GET /metrics needs the bearer token of metrics.token');
      }
      const { contentType, text } = await deps.ops.metrics();
      return c.body(text, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
    },
  );
}
