import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf, Usd } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { listedModels, ModelParametersInfo } from './parameters.js';

/** A generation model as the config defines it: prices (USD per image) and capabilities. */
export const Model = z.object({
  id: z.string(),
  default: z.boolean().describe('the model `auto` resolves to'),
  price: z.object({ perImage: Usd, perInput: Usd, perImage4k: Usd.optional() }),
  capabilities: z.object({
    maxInputs: z.number(),
    supports4k: z.boolean(),
    negativePrompt: z.boolean(),
    nativeSize: z.string().optional(),
  }),
  parameters: ModelParametersInfo,
  allowRawWorkflows: z
    .literal(true)
    .optional()
    .describe(
      'present (true) when a key with the scope workflow:raw may post a whole ComfyUI graph in `workflow`; absent otherwise',
    ),
});
export const ListModelsResponse = dataOf(z.array(Model));
export type ListModelsResponse = z.infer<typeof ListModelsResponse>;

export function registerModelsList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/models',
      summary: 'The generation models, their prices (USD per image) and capabilities',
      guard: { accept: ['apiKey', 'accessToken'] },
      response: ListModelsResponse,
    },
    async () => {
      const { models, defaultModel } = deps.config.current();
      return listedModels(models, defaultModel);
    },
  );
}
