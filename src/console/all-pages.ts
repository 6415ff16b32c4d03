import type { Hono, MiddlewareHandler } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from './console-deps.js';
import { accountSession } from './console-http.js';
import { registerDestinations } from './destinations/routes.js';
import { registerGallery } from './gallery/routes.js';
import { authorizeSession } from './key-principal.js';
import { registerKeys } from './keys/routes.js';
import { registerOperator } from './operator/routes.js';
import { registerOverview } from './overview/routes.js';
import { registerPlayground } from './playground/routes.js';
import { registerSignIn } from './sign-in/routes.js';
import { registerTasks } from './tasks/routes.js';
import { registerUsage } from './usage/routes.js';
import { registerWebhooks } from './webhooks/routes.js';

/** Reading tasks and what they made needs the scope GET /tasks needs, as the API asks of an access token. */
function readingTasks(deps: ConsoleDeps): MiddlewareHandler<ConsoleEnv> {
  return async function readingTasks(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') authorizeSession(deps, accountSession(c), 'tasks:read');
    return next();
  };
}

/** Every console page and action, in one list (paths are under /console). */
export function registerPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  for (const path of ['/tasks', '/tasks/*', '/gallery', '/gallery/*', '/thumbs/*']) app.use(path, readingTasks(deps));
  registerSignIn(app, deps);
  registerOverview(app, deps);
  registerTasks(app, deps);
  registerPlayground(app, deps);
  registerGallery(app, deps);
  registerKeys(app, deps);
  registerWebhooks(app, deps);
  registerDestinations(app, deps);
  registerUsage(app, deps);
  registerOperator(app, deps);
}
