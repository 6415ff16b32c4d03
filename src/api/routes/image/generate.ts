import type { Hono } from 'hono';
import type { z } from 'zod';
import type { GenerateBody } from '../../../task-types/image-generate-body.js';
import { addRoute } from '../../route.js';
import { createTaskHandler, taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { CreatedTaskResponse } from './schemas.js';

/** The body schema lives with the task type (built per config: unknown model ids fail it). */
export { generateBody } from '../../../task-types/image-generate-body.js';
export const GenerateResponse = CreatedTaskResponse;
export type GenerateResponse = CreatedTaskResponse;

export function registerImageGenerate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = taskTypeOf(deps, 'image.generate');
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/generate',
      summary: 'Create an image.generate task',
      guard: { accept: ['apiKey'], scope: type.scope },
      family: 'image',
      // Its model ids come from the config in force (built once per config).
      body: () => type.body() as z.ZodType<GenerateBody>,
      status: 201,
      response: GenerateResponse,
      errors: [
        'VALIDATION_ERROR',
        'INSUFFICIENT_BALANCE',
        'SPENDING_LIMIT_EXCEEDED',
        'RATE_LIMIT_EXCEEDED',
        'ENQUEUE_FAILED',
      ],
    },
    createTaskHandler(deps, type.type),
  );
}
