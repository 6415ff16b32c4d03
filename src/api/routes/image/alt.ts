import type { Hono } from 'hono';
import { AltBody } from '../../../tasks/image-alt.js';
import { addRoute } from '../../route.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';


export function registerImageAlt(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = taskTypeOf(deps, 'image.alt');
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/alt',
      summary: 'Write alt text for images (sync by default: 200 with results, or 202 to poll)',
      guard: { accept: ['apiKey', 'accessToken'], scope: type.scope },
      family: 'image',
      body: AltBody,
      status: 200,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'UNKNOWN_ERROR', 'ENQUEUE_FAILED'],
    },
    (c, { principal, body }) => createAndMaybeWait(c, deps, principal, type.type, body),
  );
}
