import { z } from 'zod';
import { ASPECT_RATIOS, SIZE_PRESETS } from '../../domain/sizes.js';

/** SPEC part 8 limits, written where the schemas use them. */
export const LIMITS = { prompt: 8192, count: 20, inputs: 20, inputUrl: 2048, customWebhooks: 5, destinationName: 64, metadataBytes: 2048, urls: 10, levelsMin: 2, levelsMax: 7, levelValue: 24, levelDescription: 150 } as const;

const Url = z.string().min(1).max(LIMITS.inputUrl);
const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(LIMITS.inputUrl);

export const WebhookOptions = z.object({
  dashboard: z.boolean().optional(),
  custom: z.array(z.object({ url: HttpUrl })).max(LIMITS.customWebhooks).optional(),
});
export const AccessOptions = z.object({ pat: z.object({ enabled: z.boolean().default(true) }).optional() });
export const Metadata = z.record(z.string(), z.unknown());
export const DestinationName = z.string().min(1).max(LIMITS.destinationName);

export const RatingLevel = z.object({ value: z.string().min(1).max(LIMITS.levelValue), description: z.string().min(1).max(LIMITS.levelDescription) });
const Levels = z.array(RatingLevel).min(LIMITS.levelsMin).max(LIMITS.levelsMax);

export const GenerateRating = z.union([z.literal(true), z.discriminatedUnion('mode', [z.object({ mode: z.literal('nsfw_sfw') }), z.object({ mode: z.literal('custom'), levels: Levels })])]);

export const SizeValue = z.union([
  z.enum(SIZE_PRESETS),
  z.object({ type: z.literal('aspect_ratio'), aspectRatio: z.enum(ASPECT_RATIOS), scale: z.enum(['base', '4k']).optional() }),
  z.object({ type: z.literal('auto') }),
]);

export const InputEntry = z.union([Url, z.object({ type: z.literal('image'), source: z.object({ type: z.literal('url'), url: Url }) })]);

/** POST /image/generate. Built per set of model ids: an unknown id fails the schema. */
export function generateBody(modelIds: readonly string[]) {
  return z.object({
    prompt: z.string().min(1).max(LIMITS.prompt),
    negative_prompt: z.string().min(1).max(LIMITS.prompt).optional(),
    magic_prompt: z.literal(true).optional(),
    model: z.enum(['auto', ...modelIds] as [string, ...string[]]).default('auto'),
    size: SizeValue.default('auto'),
    count: z.number().int().min(1).max(LIMITS.count).default(1),
    inputs: z.array(InputEntry).max(LIMITS.inputs).default([]),
    output: z
      .object({ format: z.enum(['png', 'jpg', 'webp']).default('webp'), quality: z.number().int().min(1).max(100).default(80) })
      .default({ format: 'webp', quality: 80 }),
    webhook: WebhookOptions.optional(),
    rating: GenerateRating.optional(),
    destination: DestinationName.optional(),
    metadata: Metadata.optional(),
    access: AccessOptions.optional(),
  });
}
export type GenerateRequest = z.infer<ReturnType<typeof generateBody>>;

/** POST /image/rate. `levels` is required, and kept, only in custom mode. */
export const RateBody = z
  .object({
    mode: z.enum(['nsfw_sfw', 'custom']),
    urls: z.array(Url).min(1).max(LIMITS.urls),
    levels: Levels.optional(),
    sync: z.boolean().default(true),
  })
  .superRefine((body, ctx) => {
    if (body.mode === 'custom' && !body.levels) ctx.addIssue({ code: 'custom', path: ['levels'], message: 'levels are required when mode is custom' });
  });
export type RateBody = z.infer<typeof RateBody>;
export type RateRequest = { mode: 'nsfw_sfw' | 'custom'; urls: string[]; levels?: z.infer<typeof RatingLevel>[] };

/** POST /image/alt. */
export const AltBody = z.object({ urls: z.array(Url).min(1).max(LIMITS.urls), sync: z.boolean().default(true) });
export type AltRequest = { urls: string[] };

/** POST /image/remove-background. */
export const RemoveBackgroundBody = z.object({
  url: HttpUrl,
  output: z.object({ format: z.enum(['png', 'webp']) }).optional(),
  destination: DestinationName.optional(),
  webhook: WebhookOptions.optional(),
  metadata: Metadata.optional(),
  access: AccessOptions.optional(),
});
export type RemoveBackgroundRequest = z.infer<typeof RemoveBackgroundBody>;

/** The URL of an input entry, whichever of its two forms was sent. */
export const inputUrl = (entry: z.infer<typeof InputEntry>): string => (typeof entry === 'string' ? entry : entry.source.url);
