import type { Hono } from 'hono';
import type { z } from 'zod';
import type { GenerateBody } from '../../../tasks/image-generate.js';
import { addRoute } from '../../route.js';
import { createTaskHandler, taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';


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
      // Built per call: the model ids come from the config in force.
      body: () => type.body() as z.ZodType<GenerateBody>,
      status: 201,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ENQUEUE_FAILED'],
    },
    createTaskHandler(deps, type.type, { status: 201 }),
  );
}
