import type { Hono } from 'hono';
import { registerApiKeysCreate } from './routes/api-keys/create.js';
import { registerApiKeysDelete } from './routes/api-keys/delete.js';
import { registerApiKeysGet } from './routes/api-keys/get.js';
import { registerApiKeysList } from './routes/api-keys/list.js';
import { registerHealth } from './routes/health.js';
import { registerImageAlt } from './routes/image/alt.js';
import { registerImageGenerate } from './routes/image/generate.js';
import { registerImageRate } from './routes/image/rate.js';
import { registerImageRemoveBackground } from './routes/image/remove-background.js';
import { registerImageFile } from './routes/image/serve-file.js';
import { registerImageUpload } from './routes/image/upload.js';
import { registerModelsList } from './routes/models/list.js';
import { registerWebhookRoutes } from './routes/webhooks/manage.js';
import { registerDestinationRoutes } from './routes/destinations/manage.js';
import { registerTasksEstimate } from './routes/tasks/estimate.js';
import { registerTasksGet } from './routes/tasks/get.js';
import { registerTasksList } from './routes/tasks/list.js';
import { registerTasksResult } from './routes/tasks/result.js';
import { registerTasksStatus } from './routes/tasks/status.js';
import type { ApiDeps, ApiEnv } from './types.js';

/** Every route of the API, in one list. */
export function registerRoutes(app: Hono<ApiEnv>, deps: ApiDeps): void {
  registerHealth(app, deps);
  registerImageGenerate(app, deps);
  registerImageRate(app, deps);
  registerImageAlt(app, deps);
  registerImageRemoveBackground(app, deps);
  registerImageUpload(app, deps);
  registerImageFile(app, deps);
  registerApiKeysCreate(app, deps);
  registerApiKeysList(app, deps);
  registerApiKeysGet(app, deps);
  registerApiKeysDelete(app, deps);
  registerTasksList(app, deps);
  registerTasksEstimate(app, deps);
  registerTasksGet(app, deps);
  registerTasksStatus(app, deps);
  registerTasksResult(app, deps);
  registerModelsList(app, deps);
  registerWebhookRoutes(app, deps);
  registerDestinationRoutes(app, deps);
}
