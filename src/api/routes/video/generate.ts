import type { Hono } from 'hono';
import type { z } from 'zod';
import type { VideoBody } from '../../../task-types/video-generate.js';
import { addRoute } from '../../route.js';
import { createTaskHandler, taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { CreatedTaskResponse } from '../image/schemas.js';

/** The body schema lives with the task type (built per config: unknown video model ids fail it). */
export { videoBody as generateVideoBody } from '../../../task-types/video-generate.js';
export const GenerateVideoResponse = CreatedTaskResponse;
export type GenerateVideoResponse = CreatedTaskResponse;

export function registerVideoGenerate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = taskTypeOf(deps, 'video.generate');
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/video/generate',
      summary: 'Create a video.generate task (async: 201, then poll or take the webhook)',
      guard: { accept: ['apiKey', 'accessToken'], scope: type.scope },
      family: 'image',
      body: () => type.body() as z.ZodType<VideoBody>,
      status: 201,
      response: GenerateVideoResponse,
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
