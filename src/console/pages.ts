import type { Hono, MiddlewareHandler } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from './deps.js';
import { accountSession } from './http.js';
import { authorizeSession } from './key-principal.js';
import { registerDestinations } from './pages/destinations.js';
import { registerGallery } from './pages/gallery.js';
import { registerKeys } from './pages/keys.js';
import { registerOperator } from './pages/operator.js';
import { registerOverview } from './pages/overview.js';
import { registerPlayground } from './pages/playground.js';
import { registerSignIn } from './pages/sign-in.js';
import { registerTasks } from './pages/tasks.js';
import { registerUsage } from './pages/usage.js';
import { registerWebhooks } from './pages/webhooks.js';

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
