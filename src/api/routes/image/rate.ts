import type { Hono } from 'hono';
import type { z } from 'zod';
import { RateBody, RateResult } from '../../../task-types/image-rate.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { addSyncTaskRoute } from '../../task-create-route.js';
import { PendingTaskAnswer, syncAnswer } from './schemas.js';

export { RateBody } from '../../../task-types/image-rate.js';
export const RateResponse = syncAnswer(RateResult.shape.results);
export type RateResponse = z.infer<typeof RateResponse>;

export function registerImageRate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addSyncTaskRoute(app, deps, {
    type: 'image.rate',
    path: '/image/rate',
    summary: 'Rate images (sync by default: 200 with results, or 202 to poll)',
    body: RateBody,
    response: RateResponse,
    pending: PendingTaskAnswer,
    answer: (c, { principal, body }, type) =>
      createAndMaybeWait<z.infer<typeof RateResult>['results']>(c, deps, principal, type, body),
  });
}
