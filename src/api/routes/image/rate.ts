import type { Hono } from 'hono';
import type { z } from 'zod';
import { RateBody, RateResult } from '../../../task-types/image-rate.js';
import { addRoute } from '../../route.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { PendingTaskAnswer, syncAnswer } from './schemas.js';

export { RateBody } from '../../../task-types/image-rate.js';
export const RateResponse = syncAnswer(RateResult.shape.results);
export type RateResponse = z.infer<typeof RateResponse>;

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
      response: RateResponse,
      also: [
        {
          status: 202,
          description:
            'Accepted: `sync: false`, or the task still pending after the sync timeout (sync.timeoutMs); poll GET /tasks/{id}',
          schema: PendingTaskAnswer,
        },
      ],
      errors: [
        'VALIDATION_ERROR',
        'INSUFFICIENT_BALANCE',
        'SPENDING_LIMIT_EXCEEDED',
        'RATE_LIMIT_EXCEEDED',
        'UNKNOWN_ERROR',
        'ENQUEUE_FAILED',
      ],
    },
    (c, { principal, body }) =>
      createAndMaybeWait<z.infer<typeof RateResult>['results']>(c, deps, principal, type.type, body),
  );
}
