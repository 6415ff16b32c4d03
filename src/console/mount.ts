import { type Context, Hono, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv } from '../api/api-deps.js';
import { notFound } from '../api/error-handler.js';
import { AppError } from '../domain/errors.js';
import { registerPages } from './all-pages.js';
import { registerAssets } from './assets.js';
import type { ConsoleDeps, ConsoleEnv } from './console-deps.js';
import { errorAnswer, notFoundAnswer } from './error-page.js';
import { CSRF_FIELD } from './layout.js';
import { fromOwnOrigin, sameSecret, securityHeaders } from './security.js';
import { loadSession } from './session.js';

/** The largest form a console page posts (a webhook, a destination's config, a playground request). */
const FORM_LIMIT_BYTES = 256 * 1024;

/**
 * Refuses a state-changing request that a page of this origin did not send: the Origin header
 * (or Sec-Fetch-Site) must name this origin, and, once signed in, the form's token (or the
 * X-CSRF-Token header of a script's request) must be the session's.
 */
function csrfGuard() {
  return async function csrfGuard(c: Context<ConsoleEnv>, next: Next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    if (!fromOwnOrigin(c))
      throw new AppError(
        'UNAUTHORIZED',
        'this request came from a page of another site: the console takes forms from its own pages only',
      );
    const session = c.get('session');
    // Signing in again over a live session (another account, another token, a link) needs no form
    // token: the sign-in forms are the ones a signed-out page shows too. Their Origin is still checked.
    const signingIn = c.req.path === '/console/sign-in' || c.req.path.startsWith('/console/sign-in/');
    if (session && !signingIn) {
      const type = c.req.header('content-type') ?? '';
      const fromForm =
        type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')
          ? (await c.req.parseBody())[CSRF_FIELD]
          : undefined;
      const token = c.req.header('x-csrf-token') ?? (typeof fromForm === 'string' ? fromForm : '');
      if (!sameSecret(token, session.csrf))
        throw new AppError(
          'UNAUTHORIZED',
          'this form is out of date or did not come from the console: reload the page and try again',
        );
    }
    return next();
  };
}

/**
 * Mounts the web console under /console: assets, sign-in, and the pages. `console.enabled: false`
 * (a reload applies it) answers every /console path as an unknown route.
 */
export function mountConsole(app: Hono<ApiEnv>, deps: ConsoleDeps): void {
  const web = new Hono<ConsoleEnv>();
  web.use('*', async (c, next) => {
    if (!deps.config.current().console.enabled) return notFound(c);
    return next();
  });
  web.use('*', securityHeaders());
  // Only where a body may come: reading c.req.raw on a GET would build a full Request for nothing.
  const formLimit = bodyLimit({ maxSize: FORM_LIMIT_BYTES, onError: (c) => c.text('form too large', 413) });
  web.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : formLimit(c, next)));
  registerAssets(web);
  web.use('*', loadSession(deps));
  web.use('*', csrfGuard());
  registerPages(web, deps);
  web.all('*', notFoundAnswer);
  web.onError(errorAnswer);
  app.route('/console', web);
}
