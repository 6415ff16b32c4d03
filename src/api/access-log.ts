import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Principal } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';

/**
 * The route label of a request no route matched (404s, preflights answered by middleware): raw paths would make every
 * scanner's probe a series.
 */
const UNMATCHED = '(unmatched)';

/** Who made the request, as far as the log may say: the key's id, never the key or a token. */
function credentialFields(principal: Principal | undefined): Record<string, string> {
  if (!principal) return {};
  if (principal.kind === 'apiKey')
    return { credential: 'apiKey', keyId: principal.keyId, accountId: principal.accountId };
  if (principal.kind === 'pat') return { credential: 'pat', taskId: principal.taskId, accountId: principal.accountId };
  return { credential: 'accessToken', accountId: principal.accountId };
}

/**
 * One access line per answered request, and its count and time in the metrics: request id,
 * method, the route's pattern (`/tasks/:id`, not the path asked for), status, milliseconds, and
 * the key id of the credential when one was checked; for a create, the task it made (id, type,
 * items, estimate: the create's one line at info); for a 500, the error with its stack (the
 * error handler logs nothing itself, so a fault is one line). Mounted after the request id is
 * set; errors and 404s pass through it too (hono's handlers answer them before it resumes).
 */
export function accessLog(deps: Pick<ApiDeps, 'ops'>): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const pattern = routePath(c, -1);
    const route = pattern === '*' || pattern === '/*' ? UNMATCHED : pattern;
    const status = c.res.status;
    const method = c.req.method;
    deps.ops.observeRequest({ method, route, status, seconds });
    const fault = c.get('fault');
    const fields = {
      event: 'http.request',
      requestId: c.get('requestId'),
      method,
      route,
      status,
      ms: Math.round(seconds * 10_000) / 10,
      ...credentialFields(c.get('principal')),
      ...c.get('created'),
      ...(fault ? { err: fault } : {}),
    };
    deps.ops.accessLog[levelOf(route, status)](fields, `${method} ${route} ${status}`);
  };
}

/**
 * Only a server fault is an `error`: a 5xx, except 503, which the service answers on purpose
 * (not ready, a dependency away, backpressure) and which is a `warn`, and 507 (a full disk,
 * answered on purpose to every write until space is freed; the store logs the condition once),
 * a `warn` too; /ready's 503 while the
 * models warm up or the store is away is its answer to a probe asked every few seconds, an
 * `info`. A client's error is an `info` (a bad body, an unknown id, a 408 or 499 when the
 * client sent its body too slowly or left), except a refused credential (401, 403), a `warn`:
 * a key that stopped working or someone trying keys is worth an operator's eye.
 */
function levelOf(route: string, status: number): 'info' | 'warn' | 'error' {
  if (status === 503) return route === '/ready' ? 'info' : 'warn';
  if (status === 507) return 'warn';
  if (status >= 500) return 'error';
  if (status === 401 || status === 403) return 'warn';
  return 'info';
}
