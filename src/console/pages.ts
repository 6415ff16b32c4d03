import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from './deps.js';
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

/** Every console page and action, in one list (paths are under /console). */
export function registerPages(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
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
