import { z } from 'zod';
import { UNIT_PRICES } from '../domain/prices.js';
import { NSFW_LEVELS } from '../domain/rating.js';
import { ProviderError } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import { requireProvider, requireVision } from './checks.js';
import { ImageRef, Levels, LIMITS, Priority, priorityPart, type RatingLevel } from './request-parts.js';
import { urlResults } from './result-parts.js';
import type { ImageTaskDeps } from './task-type-deps.js';
import { createUrlListType } from './url-list.js';

/** POST /image/rate. `levels` is required, and kept, only in custom mode. */
export const RateBody = z
  .object({
    mode: z.enum(['nsfw_sfw', 'custom']),
    urls: z.array(ImageRef).min(1).max(LIMITS.urls),
    levels: Levels.optional(),
    sync: z.boolean().default(true),
    priority: Priority,
  })
  .superRefine((body, ctx) => {
    if (body.mode === 'custom' && !body.levels)
      ctx.addIssue({ code: 'custom', path: ['levels'], message: 'levels are required when mode is custom' });
  });
export type RateBody = z.infer<typeof RateBody>;

/** The task's result: each URL's level, or why it failed. */
export const RateResult = urlResults({ level: z.string() });

/**
 * The task's request: mode, urls and, in custom mode only, levels
 * (docs/api/images.md#rate-and-alt-post-imagerate-post-imagealt).
 */
export interface RateRequest {
  mode: 'nsfw_sfw' | 'custom';
  urls: string[];
  levels?: RatingLevel[];
  priority?: number;
}

/** image.rate: one item per URL, rated on the nsfw_sfw scale (embedded model) or custom levels (a vision model). */
export function createRateType(deps: ImageTaskDeps): TaskTypeDefinition<RateBody, RateRequest> {
  return createUrlListType(deps, {
    type: 'image.rate',
    scope: 'image:rate',
    body: RateBody,
    toRequest: (body) =>
      body.mode === 'custom'
        ? { mode: body.mode, urls: body.urls, levels: body.levels, ...priorityPart(body) }
        : { mode: body.mode, urls: body.urls, ...priorityPart(body) },
    unitPrice: UNIT_PRICES.rate,
    lane: 'image.rate',
    failureCode: 'RATING_FAILED',
    validate(request) {
      if (request.mode === 'custom') requireVision(deps.providers().visionRater, 'custom rating');
      else requireProvider(deps.providers().nsfwRater, 'nsfw_sfw rating');
    },
    async run(image, request, signal) {
      const custom = request.mode === 'custom';
      const levels = custom ? request.levels! : [...NSFW_LEVELS];
      const rater = custom ? deps.providers().visionRater : deps.providers().nsfwRater;
      if (!rater) throw new ProviderError('RATING_FAILED', 'no rater is configured', { retryable: false });
      const level = await rater.rate(image, { mode: request.mode, levels }, signal);
      if (!levels.some((l) => l.value === level))
        throw new ProviderError(
          'RATING_FAILED',
          `the rater answered "${String(level).slice(0, 40)}", which is not a level`,
          { retryable: false },
        );
      return { level };
    },
  });
}
