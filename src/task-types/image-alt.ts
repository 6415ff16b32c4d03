import { z } from 'zod';
import { UNIT_PRICES } from '../domain/prices.js';
import { ProviderError } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import { requireProvider } from './checks.js';
import { ImageRef, LIMITS, Priority, priorityPart } from './request-parts.js';
import { urlResults } from './result-parts.js';
import type { ImageTaskDeps } from './task-type-deps.js';
import { createUrlListType, type UrlListRequest } from './url-list.js';

/** POST /image/alt. */
export const AltBody = z.object({
  urls: z.array(ImageRef).min(1).max(LIMITS.urls),
  sync: z.boolean().default(true),
  priority: Priority,
});
export type AltBody = z.infer<typeof AltBody>;

/** The task's result: each URL's alt text (1 to 160 characters), or why it failed. */
export const AltResult = urlResults({ alt: z.string().min(1).max(160) });

/** Alt text: whitespace folded, cut on a word boundary to at most 160 characters. */
function tidyAlt(text: string): string {
  const folded = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["']|["']$/g, '')
    .trim();
  if (folded.length <= 160) return folded;
  const cut = folded.slice(0, 160);
  const space = cut.lastIndexOf(' ');
  return (space > 80 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '');
}

/** image.alt: one item per URL, described by the alt-text provider (embedded or a vision model). */
export function createAltType(deps: ImageTaskDeps): TaskTypeDefinition<AltBody, UrlListRequest> {
  return createUrlListType(deps, {
    type: 'image.alt',
    scope: 'image:alt',
    body: AltBody,
    toRequest: (body) => ({ urls: body.urls, ...priorityPart(body) }),
    unitPrice: UNIT_PRICES.alt,
    lane: 'image.alt',
    failureCode: 'ALT_GENERATION_FAILED',
    validate() {
      requireProvider(deps.providers().altText, 'alt text');
    },
    async run(image, _request, signal) {
      const writer = deps.providers().altText;
      if (!writer)
        throw new ProviderError('ALT_GENERATION_FAILED', 'no alt-text provider is configured', { retryable: false });
      const alt = tidyAlt(await writer.describe(image, signal));
      if (!alt) throw new ProviderError('ALT_GENERATION_FAILED', 'the provider gave no alt text', { retryable: false });
      return { alt };
    },
  });
}
