import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { parseUsd } from '../domain/money.js';
import { NSFW_LEVELS } from '../domain/rating.js';
import { MAX_ATTEMPTS, ProviderError, type TaskErrorCode } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import { measureQuality } from '../media/quality.js';
import type { SourceImage } from '../providers/provider-types.js';
import { checkMetadata, VISION_SETUP } from './checks.js';
import { AccessOptions, FreeText, ImageRef, LIMITS, Metadata, Priority, WebhookOptions } from './request-parts.js';
import { OFFLINE_PHRASINGS } from './review-criteria.js';
import {
  assembleReview,
  type Finding,
  measure,
  type Observations,
  planReview,
  type ReviewAbilities,
} from './review-findings.js';
import type { ImageTaskDeps } from './task-type-deps.js';

/** Criteria one review may ask for, and the length of each. */
export const REVIEW_LIMITS = { criteria: 10, criterion: 200 } as const;

/** POST /image/review. The task keeps the body without `sync`. */
export const ReviewBody = z.object({
  url: ImageRef.describe('an http(s) URL, a service URL or an uploaded img_ id'),
  prompt: FreeText.min(1)
    .max(LIMITS.prompt)
    .optional()
    .describe('what the image was meant to show; judged by the vision provider, its "quoted" phrases read by OCR'),
  criteria: z.array(FreeText.trim().min(1).max(REVIEW_LIMITS.criterion)).min(1).max(REVIEW_LIMITS.criteria).optional(),
  sync: z.boolean().default(true),
  webhook: WebhookOptions.optional(),
  metadata: Metadata.optional(),
  access: AccessOptions.optional(),
  priority: Priority,
});
export type ReviewBody = z.infer<typeof ReviewBody>;
export type ReviewRequest = Omit<ReviewBody, 'sync'>;

/** The task's result: the verdict, a score, one finding per check and a summary. */
export const ReviewResult = z.object({
  verdict: z.enum(['pass', 'fail']).describe('pass when every finding passed'),
  score: z
    .number()
    .min(0)
    .max(1)
    .describe('the mean over findings (1 passed, 0 failed; "matches the prompt" counts its judged score), 2 decimals'),
  findings: z.array(z.object({ criterion: z.string(), passed: z.boolean(), note: z.string() })),
  summary: z.string(),
});
export type ReviewResult = z.infer<typeof ReviewResult>;

/**
 * The codes a review reports; any other provider code is REVIEW_FAILED
 * (docs/api/review.md#review-an-image-post-imagereview).
 */
const ALLOWED: ReadonlySet<TaskErrorCode> = new Set(['FETCH_FAILED', 'REVIEW_FAILED', 'TIMEOUT', 'PROVIDERS_BUSY']);

/**
 * image.review: one item; measured checks from the pixels, the nsfw rater and the OCR; the vision judge for the prompt
 * and free-text criteria.
 */
export function createReviewType(deps: ImageTaskDeps): TaskTypeDefinition<ReviewBody, ReviewRequest> {
  const abilities = (): ReviewAbilities => {
    const providers = deps.providers();
    return { nsfw: Boolean(providers.nsfwRater), ocr: Boolean(providers.textReader), judge: Boolean(providers.judge) };
  };
  const price = () => parseUsd(deps.config.current().review.price) ?? 0;

  async function observe(
    image: SourceImage,
    plan: ReturnType<typeof planReview>,
    signal: AbortSignal,
  ): Promise<Observations> {
    let quality: Observations['quality'];
    try {
      quality = await measureQuality(image.data);
    } catch (err) {
      throw new ProviderError('FETCH_FAILED', `the image cannot be read: ${(err as Error).message}`, {
        retryable: false,
      });
    }
    const providers = deps.providers();
    const kinds = new Set(plan.measured.map(({ check }) => check.kind));
    const rater = kinds.has('sfw') ? providers.nsfwRater : undefined;
    const reader =
      kinds.has('no-text') || kinds.has('has-text') || kinds.has('text') ? providers.textReader : undefined;
    const [nsfwLevel, reading] = await Promise.all([
      rater?.rate(image, { mode: 'nsfw_sfw', levels: [...NSFW_LEVELS] }, signal),
      reader?.read(image, signal),
    ]);
    return { quality, nsfwLevel, reading };
  }

  return {
    type: 'image.review',
    scope: 'image:review',
    body: () => ReviewBody,
    toRequest: ({ sync: _sync, ...request }) => request,
    validate(request) {
      checkMetadata(request.metadata);
      const plan = planReview(request, abilities());
      if (plan.judged.length > 0 && !abilities().judge) {
        const named = plan.judged.map((c) => `"${c}"`).join(', ');
        throw new AppError(
          'VALIDATION_ERROR',
          `the criteria ${named} need a vision provider (providers.vision), which this service has not configured (${VISION_SETUP}); offline it understands: ${OFFLINE_PHRASINGS}`,
        );
      }
    },
    itemCount: () => 1,
    itemCost: () => price(),

    lane: () => 'image.review',
    maxAttempts: MAX_ATTEMPTS.image,
    itemErrorCode: (code) => (ALLOWED.has(code) ? code : 'REVIEW_FAILED'),

    async runItem({ request, signal }): Promise<ReviewResult> {
      const image = await deps.images.load(request.url, 'FETCH_FAILED', signal);
      const plan = planReview(request, abilities());
      const judge = deps.providers().judge;
      const needsJudge = plan.judged.length > 0 || plan.judgePrompt;
      if (needsJudge && !judge)
        throw new ProviderError('REVIEW_FAILED', 'the vision provider is no longer configured', { retryable: false });
      const [seen, judgement] = await Promise.all([
        observe(image, plan, signal),
        needsJudge && judge
          ? judge.judge(image, { prompt: plan.judgePrompt ? request.prompt : undefined, criteria: plan.judged }, signal)
          : undefined,
      ]);
      const limits = deps.config.current().review;
      const measured: Finding[] = plan.measured.map(({ criterion, check }) => ({
        criterion,
        ...measure(check, seen, limits),
      }));
      // The asked wording is what findings show (the judge answers in order).
      const judged = (judgement?.findings ?? []).map((finding, i) => ({ ...finding, criterion: plan.judged[i] }));
      return assembleReview(
        measured,
        { prompt: judgement?.prompt, findings: judged, summary: judgement?.summary },
        { promptUnjudged: plan.promptUnjudged },
      );
    },

    settle(task) {
      const [item] = task.items;
      if (item.status === 'success') return { status: 'completed', result: item.result };
      return {
        status: 'failed',
        result: null,
        errors: [{ code: item.error!.code as TaskErrorCode, message: item.error!.message }],
      };
    },
  };
}
