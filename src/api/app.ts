import { Hono } from 'hono';
import { randomId } from '../domain/ids.js';
import { accessLog } from './access-log.js';
import { registerRoutes } from './all-routes.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { corsMiddleware } from './cors.js';
import { createErrorHandler, notFound } from './error-handler.js';
import { idempotency } from './idempotency.js';
import { keyRateLimitHeaders } from './rate-limit.js';
import { routesOf } from './route.js';
import { setDocumented } from './routes/docs/document.js';

/** Builds the HTTP API over the given services; it owns no state of its own. */
export function createApi(deps: ApiDeps, extend?: (app: Hono<ApiEnv>, deps: ApiDeps) => void): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use('*', async (c, next) => {
    const requestId = randomId('req');
    c.set('requestId', requestId);
    // Set before the answer exists, so c.json() builds it with the header; setting a header on a
    // finished answer makes hono copy the whole Response. Only raw answers (images, schema
    // rejections) still need it added afterwards.
    c.header('x-request-id', requestId);
    await next();
    if (!c.res.headers.has('x-request-id')) c.header('x-request-id', requestId);
  });
  app.use('*', accessLog(deps));
  app.use('*', keyRateLimitHeaders());
  // Before the routes: a preflight is answered here, without auth.
  app.use('*', corsMiddleware(deps.config));
  // Before the routes: a retry with an Idempotency-Key gets the first answer without running them again.
  app.use('*', idempotency(deps, app));
  registerRoutes(app, deps);
  // What the description describes: every route mounted so far, not what an extension adds.
  const documented = [...routesOf(app)];
  setDocumented(app, documented);
  extend?.(app, deps);
  app.notFound(notFound);
  app.onError(createErrorHandler());
  return app;
}
