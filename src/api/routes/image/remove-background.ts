import type { Hono } from 'hono';
import { RemoveBackgroundBody } from '../../../services/image/requests.js';
import { createTaskHandler } from '../../task-create.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerImageRemoveBackground(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/remove-background',
      summary: 'Create an image.remove_background task (async only)',
      guard: { accept: ['apiKey', 'accessToken'], scope: 'image:remove-background' },
      family: 'image',
      body: RemoveBackgroundBody,
      status: 201,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ENQUEUE_FAILED'],
    },
    createTaskHandler(deps, 'image.remove_background', { status: 201, estimatedCost: true }),
  );
}
