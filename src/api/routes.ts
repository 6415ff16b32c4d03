import type { Hono } from 'hono';
import { registerApiKeysCreate } from './routes/api-keys/create.js';
import { registerApiKeysDelete } from './routes/api-keys/delete.js';
import { registerApiKeysGet } from './routes/api-keys/get.js';
import { registerApiKeysList } from './routes/api-keys/list.js';
import { registerHealth } from './routes/health.js';
import type { ApiDeps, ApiEnv } from './types.js';

/** Every route of the API, in one list. */
export function registerRoutes(app: Hono<ApiEnv>, deps: ApiDeps): void {
  registerHealth(app, deps);
  registerApiKeysCreate(app, deps);
  registerApiKeysList(app, deps);
  registerApiKeysGet(app, deps);
  registerApiKeysDelete(app, deps);
}
