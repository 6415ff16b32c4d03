import { z } from 'zod';
import type { ModelParameter } from '../../../domain/model-parameters.js';
import { Usd } from '../../schemas.js';

/** One declared parameter of a model as clients see it (never its binding): enough to draw a form field from. */
export const ModelParameterInfo = z.object({
  type: z.enum(['integer', 'number', 'string', 'boolean', 'enum']),
  min: z.number().optional(),
  max: z.number().optional(),
  values: z.array(z.string()).optional().describe('enum: the values a request may choose'),
  maxLength: z.number().optional().describe('string: the longest value, in characters'),
  default: z
    .union([z.string(), z.number(), z.boolean()])
    .describe('the value used when a request leaves the parameter out'),
  description: z.string().optional(),
  price: z
    .object({ perUnit: Usd })
    .optional()
    .describe("value × perUnit USD added to each image's price (to each second's of a video)"),
});

export const ModelParametersInfo = z
  .record(z.string(), ModelParameterInfo)
  .optional()
  .describe('What a request may set in `parameters`, by name; absent when the model declares none');

/** A model's parameters without their bindings; undefined when it declares none. */
export function parametersInfo(
  parameters: Readonly<Record<string, ModelParameter>> | undefined,
): z.infer<typeof ModelParametersInfo> {
  if (!parameters || Object.keys(parameters).length === 0) return undefined;
  return Object.fromEntries(Object.entries(parameters).map(([name, { binding: _binding, ...shown }]) => [name, shown]));
}
