import type { Hono } from 'hono';
import { RemoveBackgroundBody } from '../../../task-types/image-remove-background.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addTaskCreateRoute } from '../../task-create-route.js';
import { CreatedTaskResponse } from './schemas.js';

export { RemoveBackgroundBody } from '../../../task-types/image-remove-background.js';
export const RemoveBackgroundResponse = CreatedTaskResponse;
export type RemoveBackgroundResponse = CreatedTaskResponse;

export function registerImageRemoveBackground(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addTaskCreateRoute(app, deps, {
    type: 'image.remove_background',
    path: '/image/remove-background',
    summary: 'Create an image.remove_background task (async only)',
    body: RemoveBackgroundBody,
    estimatedCost: true,
  });
}
