import type { Hono } from 'hono';
import { RemoveBackgroundBody } from '../../../task-types/image-remove-background.js';
import { addRoute } from '../../route.js';
import { createTaskHandler, taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { CreatedTaskResponse } from './schemas.js';

export { RemoveBackgroundBody } from '../../../task-types/image-remove-background.js';
export const RemoveBackgroundResponse = CreatedTaskResponse;
export type RemoveBackgroundResponse = CreatedTaskResponse;

export function registerImageRemoveBackground(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = taskTypeOf(deps, 'image.remove_background');
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/remove-background',
      summary: 'Create an image.remove_background task (async only)',
      guard: { accept: ['apiKey', 'accessToken'], scope: type.scope },
      family: 'image',
      body: RemoveBackgroundBody,
      status: 201,
      response: RemoveBackgroundResponse,
      errors: [
        'VALIDATION_ERROR',
        'INSUFFICIENT_BALANCE',
        'SPENDING_LIMIT_EXCEEDED',
        'RATE_LIMIT_EXCEEDED',
        'ENQUEUE_FAILED',
      ],
    },
    createTaskHandler(deps, type.type, { estimatedCost: true }),
  );
}
