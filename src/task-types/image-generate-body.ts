import { z } from 'zod';
import { ASPECT_RATIOS, SIZE_PRESETS } from '../domain/sizes.js';
import { ParametersField, WorkflowField } from './parameter-fields.js';
import {
  AccessOptions,
  DestinationName,
  FreeText,
  InputEntry,
  Levels,
  LIMITS,
  Metadata,
  Priority,
  WebhookOptions,
} from './request-parts.js';
import { SeedField } from './seeds.js';

const GenerateRating = z.union([
  z.literal(true),
  z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('nsfw_sfw') }),
    z.object({ mode: z.literal('custom'), levels: Levels }),
  ]),
]);

const SizeValue = z.union([
  z.enum(SIZE_PRESETS),
  z.object({
    type: z.literal('aspect_ratio'),
    aspectRatio: z.enum(ASPECT_RATIOS),
    scale: z.enum(['base', '4k']).optional(),
  }),
  z.object({ type: z.literal('auto') }),
]);

/**
 * POST /image/generate. Built per set of model ids: an unknown id fails the schema. The task keeps the body as it is.
 */
export function generateBody(modelIds: readonly string[]) {
  return z.object({
    prompt: FreeText.min(1).max(LIMITS.prompt),
    negative_prompt: FreeText.min(1).max(LIMITS.prompt).optional(),
    magic_prompt: z.literal(true).optional(),
    model: z.enum(['auto', ...modelIds] as [string, ...string[]]).default('auto'),
    size: SizeValue.default('auto'),
    count: z.number().int().min(1).max(LIMITS.count).default(1),
    seed: SeedField,
    parameters: ParametersField,
    workflow: WorkflowField,
    inputs: z.array(InputEntry).max(LIMITS.inputs).default([]),
    output: z
      .object({
        format: z.enum(['png', 'jpg', 'webp']).default('webp'),
        quality: z.number().int().min(1).max(100).default(80),
      })
      .default({ format: 'webp', quality: 80 }),
    webhook: WebhookOptions.optional(),
    rating: GenerateRating.optional(),
    destination: DestinationName.optional(),
    metadata: Metadata.optional(),
    access: AccessOptions.optional(),
    priority: Priority,
  });
}
export type GenerateBody = z.infer<ReturnType<typeof generateBody>>;
