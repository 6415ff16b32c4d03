import type { Hono } from 'hono';
import { RateBody } from '../../../tasks/image-rate.js';
import { addRoute } from '../../route.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';


export function registerImageRate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const type = taskTypeOf(deps, 'image.rate');
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/rate',
      summary: 'Rate images (sync by default: 200 with results, or 202 to poll)',
      guard: { accept: ['apiKey', 'accessToken'], scope: type.scope },
      family: 'image',
      body: RateBody,
      status: 200,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'UNKNOWN_ERROR', 'ENQUEUE_FAILED'],
    },
    (c, { principal, body }) => createAndMaybeWait(c, deps, principal, type.type, body),
  );
}
