import type { Hono } from 'hono';
import { createTaskHandler } from '../../task-create.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerImageGenerate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = deps.registry.get('image.generate')!;
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/generate',
      summary: 'Create an image.generate task',
      guard: { accept: ['apiKey'], scope: 'image:generate' },
      family: 'image',
      body: () => type.schema(),
      status: 201,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ENQUEUE_FAILED'],
    },
    createTaskHandler(deps, 'image.generate', { status: 201 }),
  );
}
