import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf, Usd } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { listedModels, ModelParametersInfo } from '../models/parameters.js';

/** A video model as the config defines it: prices (USD per second of footage, per input image) and capabilities. */
export const VideoModel = z.object({
  id: z.string(),
  default: z.boolean().describe('the model `auto` resolves to'),
  price: z.object({ perSecond: Usd, perInput: Usd }),
  capabilities: z.object({
    maxInputs: z.number().describe('0, or 1: a first frame'),
    negativePrompt: z.boolean(),
    maxDurationS: z.number(),
    maxFps: z.number(),
    maxSize: z.string().describe('the largest frame, WxH (landscape; portrait sizes are capped by its transpose)'),
    nativeSize: z.string().describe('the frame size of `size: auto`'),
  }),
  parameters: ModelParametersInfo,
  allowRawWorkflows: z
    .literal(true)
    .optional()
    .describe(
      'present (true) when a key with the scope workflow:raw may post a whole ComfyUI graph in `workflow`; absent otherwise',
    ),
});
export const ListVideoModelsResponse = dataOf(z.array(VideoModel));
export type ListVideoModelsResponse = z.infer<typeof ListVideoModelsResponse>;

export function registerVideoModelsList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/video/models',
      summary: 'The video models, their prices (USD per second) and capabilities',
      guard: { accept: ['apiKey', 'accessToken'] },
      response: ListVideoModelsResponse,
    },
    async () => {
      const { videoModels, defaultVideoModel } = deps.config.current();
      return listedModels(videoModels, defaultVideoModel);
    },
  );
}
