import type { Hono } from 'hono';
import type { z } from 'zod';
import { AltBody, AltResult } from '../../../task-types/image-alt.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { addSyncTaskRoute } from '../../task-create-route.js';
import { PendingTaskAnswer, syncAnswer } from './schemas.js';

export { AltBody } from '../../../task-types/image-alt.js';
export const AltResponse = syncAnswer(AltResult.shape.results);
export type AltResponse = z.infer<typeof AltResponse>;

export function registerImageAlt(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addSyncTaskRoute(app, deps, {
    type: 'image.alt',
    path: '/image/alt',
    summary: 'Write alt text for images (sync by default: 200 with results, or 202 to poll)',
    body: AltBody,
    response: AltResponse,
    pending: PendingTaskAnswer,
    answer: (c, { principal, body }, type) =>
      createAndMaybeWait<z.infer<typeof AltResult>['results']>(c, deps, principal, type, body),
  });
}
