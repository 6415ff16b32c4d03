import { z } from 'zod';
import type { ModelParameter } from '../../../domain/model-parameters.js';
import { Usd } from '../../common-schemas.js';

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

/**
 * A config's models as GET /models and GET /video/models list them: whether `auto` picks each, its price, capabilities
 * and parameters.
 */
export function listedModels<Price, Capabilities>(
  models: Readonly<
    Record<
      string,
      {
        price: Price;
        capabilities: Capabilities;
        parameters?: Readonly<Record<string, ModelParameter>>;
        allowRawWorkflows?: boolean;
      }
    >
  >,
  defaultModel: string,
) {
  return Object.entries(models).map(([id, model]) => ({
    id,
    default: id === defaultModel,
    price: model.price,
    capabilities: model.capabilities,
    parameters: parametersInfo(model.parameters),
    ...(model.allowRawWorkflows ? { allowRawWorkflows: true as const } : {}),
  }));
}
