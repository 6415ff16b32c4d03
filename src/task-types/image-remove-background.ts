import sharp from 'sharp';
import { z } from 'zod';
import { IMAGE_ID } from '../domain/ids.js';
import { UNIT_PRICES } from '../domain/prices.js';
import { sizeText } from '../domain/sizes.js';
import { MAX_ATTEMPTS, ProviderError, type TaskErrorCode } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import { checkDestination, checkMetadata, requireProvider } from './checks.js';
import { ingredientOf } from './output-origin.js';
import { AccessOptions, DestinationName, HttpUrl, Metadata, Priority, WebhookOptions } from './request-parts.js';
import { DestinationOutcome, Provenance } from './result-parts.js';
import { deliverToDestination, type ImageTaskDeps } from './task-type-deps.js';

/**
 * The one image: an http(s) URL (the service's own URLs included) or an uploaded image's bare
 * `img_…` id, as rate, alt and review take them; the service's own images are read from its
 * storage, never fetched. Anything else is refused before a task is made.
 */
const ImageSource = z
  .union([z.string().regex(IMAGE_ID), HttpUrl], { error: 'an http or https URL, or an uploaded image id (img_…)' })
  .describe('an http(s) URL, a service URL or an uploaded img_ id');

/** POST /image/remove-background; the task keeps the body as it is. */
export const RemoveBackgroundBody = z.object({
  url: ImageSource,
  output: z.object({ format: z.enum(['png', 'webp']) }).optional(),
  destination: DestinationName.optional(),
  webhook: WebhookOptions.optional(),
  metadata: Metadata.optional(),
  access: AccessOptions.optional(),
  priority: Priority,
});
export type RemoveBackgroundBody = z.infer<typeof RemoveBackgroundBody>;

/** The task's result: the cut-out image; `url` is the destination's when one was named (null when delivery failed). */
export const RemoveBackgroundResult = z.object({
  image: z.object({
    id: z.string(),
    url: z.string().nullable(),
    service_url: z.string(),
    size: z.string().describe('{width}x{height}'),
    format: z.enum(['png', 'webp']),
    destination: DestinationOutcome.optional(),
    provenance: Provenance,
  }),
});

/**
 * The failure codes a background-removal task reports
 * (docs/api/images.md#remove-background-post-imageremove-background).
 */
const ALLOWED: ReadonlySet<TaskErrorCode> = new Set([
  'INVALID_INPUT',
  'PROVIDER_ERROR',
  'PROVIDERS_BUSY',
  'TIMEOUT',
  'UNKNOWN_ERROR',
]);

/** image.remove_background: one item, the cut-out with real alpha, stored (and delivered) as png or webp. */
export function createRemoveBackgroundType(deps: ImageTaskDeps): TaskTypeDefinition<RemoveBackgroundBody> {
  return {
    type: 'image.remove_background',
    scope: 'image:remove-background',
    body: () => RemoveBackgroundBody,
    toRequest: (body) => body,
    async validate(request, { accountId }) {
      checkMetadata(request.metadata);
      await checkDestination(deps.destinations, accountId, request.destination);
      requireProvider(deps.providers().backgroundRemover, 'background removal');
    },
    itemCount: () => 1,
    itemCost: () => UNIT_PRICES.removeBackground,

    lane: () => 'image.remove_background',
    maxAttempts: MAX_ATTEMPTS.image,
    itemErrorCode: (code) => (ALLOWED.has(code) ? code : 'PROVIDER_ERROR'),

    async runItem({ task, request, signal, storedFiles }) {
      const source = await deps.images.load(request.url, 'INVALID_INPUT', signal);
      const remover = deps.providers().backgroundRemover;
      if (!remover)
        throw new ProviderError('PROVIDER_ERROR', 'no background remover is configured', { retryable: false });
      const removed = await remover.remove(source, signal);
      const format = request.output?.format ?? removed.format;
      // Alpha must survive: png is lossless; webp at full quality keeps the cut-out edges clean.
      const data =
        format === removed.format
          ? removed.data
          : await (format === 'png'
              ? sharp(removed.data).png()
              : sharp(removed.data).webp({ quality: 100, alphaQuality: 100 })
            ).toBuffer();
      const { width = 0, height = 0 } = await sharp(data).metadata();
      // An edit of the source image, which its credentials name as their ingredient.
      const origin = {
        action: 'edited' as const,
        taskId: task.id,
        taskType: 'image.remove_background',
        ingredient: ingredientOf(source, 'source'),
      };
      const stored = await deps.images.saveAsIs(data, format, width, height, origin);
      storedFiles?.(stored.files);
      const image: Record<string, unknown> = {
        id: stored.id,
        url: stored.serviceUrl,
        service_url: stored.serviceUrl,
        size: sizeText(width, height),
        format,
      };
      if (stored.provenance) image.provenance = stored.provenance;
      await deliverToDestination(deps, image, {
        accountId: task.accountId,
        destination: request.destination,
        taskId: task.id,
        index: 0,
        image: stored,
        signal,
      });
      return image;
    },

    settle(task) {
      const [item] = task.items;
      if (item.status === 'success') return { status: 'completed', result: { image: item.result } };
      return {
        status: 'failed',
        result: null,
        errors: [{ code: item.error!.code as TaskErrorCode, message: item.error!.message }],
      };
    },
  };
}
