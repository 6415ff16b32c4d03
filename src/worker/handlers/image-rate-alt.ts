import { UNIT_PRICES } from '../../domain/prices.js';
import { NSFW_LEVELS } from '../../domain/rating.js';
import { ProviderError } from '../../domain/tasks.js';
import { requireProvider } from '../../services/image/checks.js';
import { type AltRequest, type RateRequest } from '../../services/image/requests.js';
import type { TaskTypeDefinition } from '../../services/task-types.js';
import { z } from 'zod';
import type { ImageTypeDeps } from './deps.js';
import { createUrlListType } from './image-url-list.js';
import { RatingLevel } from '../../services/image/requests.js';

/** The stored request of a rate task: mode, urls and, in custom mode, levels (SPEC part 2). */
export const StoredRateRequest: z.ZodType<RateRequest> = z.object({
  mode: z.enum(['nsfw_sfw', 'custom']),
  urls: z.array(z.string()),
  levels: z.array(RatingLevel).optional(),
});

/** Alt text: whitespace folded, cut on a word boundary to at most 160 characters. */
export function tidyAlt(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim().replace(/^["']|["']$/g, '').trim();
  if (folded.length <= 160) return folded;
  const cut = folded.slice(0, 160);
  const space = cut.lastIndexOf(' ');
  return (space > 80 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '');
}

export function createRateType(deps: ImageTypeDeps): TaskTypeDefinition<RateRequest> {
  return createUrlListType(deps, {
    type: 'image.rate',
    scope: 'image:rate',
    schema: StoredRateRequest,
    unitPrice: UNIT_PRICES.rate,
    lane: 'image.rate',
    failureCode: 'RATING_FAILED',
    validate(request) {
      if (request.mode === 'custom') requireProvider(deps.providers().visionRater, 'custom rating (a vision model)');
      else requireProvider(deps.providers().nsfwRater, 'nsfw_sfw rating');
    },
    async run(image, request, signal) {
      const custom = request.mode === 'custom';
      const levels = custom ? request.levels! : [...NSFW_LEVELS];
      const rater = custom ? deps.providers().visionRater : deps.providers().nsfwRater;
      if (!rater) throw new ProviderError('RATING_FAILED', 'no rater is configured', { retryable: false });
      const level = await rater.rate(image, { mode: request.mode, levels }, signal);
      if (!levels.some((l) => l.value === level)) throw new ProviderError('RATING_FAILED', `the rater answered "${String(level).slice(0, 40)}", which is not a level`, { retryable: false });
      return { level };
    },
  });
}

export function createAltType(deps: ImageTypeDeps): TaskTypeDefinition<AltRequest> {
  return createUrlListType(deps, {
    type: 'image.alt',
    scope: 'image:alt',
    schema: z.object({ urls: z.array(z.string()) }),
    unitPrice: UNIT_PRICES.alt,
    lane: 'image.alt',
    failureCode: 'ALT_GENERATION_FAILED',
    validate() {
      requireProvider(deps.providers().altText, 'alt text');
    },
    async run(image, _request, signal) {
      const writer = deps.providers().altText;
      if (!writer) throw new ProviderError('ALT_GENERATION_FAILED', 'no alt-text provider is configured', { retryable: false });
      const alt = tidyAlt(await writer.describe(image, signal));
      if (!alt) throw new ProviderError('ALT_GENERATION_FAILED', 'the provider gave no alt text', { retryable: false });
      return { alt };
    },
  });
}
