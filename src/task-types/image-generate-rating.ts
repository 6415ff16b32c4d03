import { NSFW_LEVELS } from '../domain/rating.js';
import type { RatingRequest, SourceImage } from '../providers/provider-types.js';
import type { GenerateBody } from './image-generate-body.js';
import type { ImageTaskDeps } from './task-type-deps.js';

/** The rating a generate request asks for, as the raters take it; null when it asks for none. */
export const ratingRequestOf = (rating: GenerateBody['rating']): RatingRequest | null => {
  if (rating === undefined) return null;
  if (rating === true || rating.mode === 'nsfw_sfw') return { mode: 'nsfw_sfw', levels: [...NSFW_LEVELS] };
  return { mode: 'custom', levels: rating.levels };
};

/** An image's rating: success with the level, or failed RATING_FAILED (the image itself still succeeds). */
export async function rateGeneratedImage(
  deps: ImageTaskDeps,
  request: RatingRequest,
  image: SourceImage,
  signal: AbortSignal,
) {
  const rater = request.mode === 'custom' ? deps.providers().visionRater : deps.providers().nsfwRater;
  try {
    if (!rater) throw new Error('no rater');
    const level = await rater.rate(image, request, signal);
    if (!request.levels.some((l) => l.value === level)) throw new Error('not a level');
    return { status: 'success', level };
  } catch {
    return { status: 'failed', error: { code: 'RATING_FAILED' } };
  }
}
