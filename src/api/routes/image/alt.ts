import type { Hono } from 'hono';
import type { z } from 'zod';
import { AltBody, AltResult } from '../../../task-types/image-alt.js';
import { addRoute } from '../../route.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { taskTypeOf } from '../../task-create.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { PendingTaskAnswer, syncAnswer } from './schemas.js';

export { AltBody } from '../../../task-types/image-alt.js';
export const AltResponse = syncAnswer(AltResult.shape.results);
export type AltResponse = z.infer<typeof AltResponse>;

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
      response: AltResponse,
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
      createAndMaybeWait<z.infer<typeof AltResult>['results']>(c, deps, principal, type.type, body),
  );
}
