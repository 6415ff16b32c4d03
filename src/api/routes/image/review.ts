import type { Hono } from 'hono';
import { z } from 'zod';
import { ReviewBody, ReviewResult } from '../../../task-types/image-review.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf, Usd } from '../../common-schemas.js';
import { createAndMaybeWaitForResult } from '../../sync-answer.js';
import { addSyncTaskRoute } from '../../task-create-route.js';

export { ReviewBody } from '../../../task-types/image-review.js';

const PatAccess = z.object({ publicAccessToken: z.string().describe('a pat_ token for this task, valid one hour') });

/**
 * 200: the review when the task completed within sync.timeoutMs; 202 (same schema, no result): still pending, or `sync:
 * false`.
 */
export const ReviewResponse = dataOf(
  z.object({
    task: z.object({ id: z.string(), status: z.enum(['pending', 'completed']), cost: Usd.optional() }),
    result: ReviewResult.optional().describe('absent on 202'),
    access: PatAccess.optional(),
  }),
);
export type ReviewResponse = z.infer<typeof ReviewResponse>;

/** The 202 answer of review: the task to poll, with its PAT when enabled. */
export const PendingReviewAnswer = dataOf(
  z.object({ task: z.object({ id: z.string(), status: z.literal('pending') }), access: PatAccess.optional() }),
);

export function registerImageReview(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addSyncTaskRoute(app, deps, {
    type: 'image.review',
    path: '/image/review',
    summary:
      'Review an image: technical checks, prompt adherence and criteria (sync by default: 200 with the review, or 202 to poll)',
    body: ReviewBody,
    response: ReviewResponse,
    pending: PendingReviewAnswer,
    answer: (c, { principal, body }, type) => createAndMaybeWaitForResult<ReviewResult>(c, deps, principal, type, body),
  });
}
