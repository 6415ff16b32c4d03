import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addTaskCreateRoute } from '../../task-create-route.js';
import { CreatedTaskResponse } from '../image/schemas.js';

/** The body schema lives with the task type (built per config: unknown video model ids fail it). */
export { videoBody as generateVideoBody } from '../../../task-types/video-generate.js';
export const GenerateVideoResponse = CreatedTaskResponse;
export type GenerateVideoResponse = CreatedTaskResponse;

export function registerVideoGenerate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addTaskCreateRoute(app, deps, {
    type: 'video.generate',
    path: '/video/generate',
    summary: 'Create a video.generate task (async: 201, then poll or take the webhook)',
    estimatedCost: true,
  });
}
