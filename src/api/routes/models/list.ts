import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerModelsList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/models',
      summary: 'The generation models, their prices (USD per image) and capabilities',
      guard: { accept: ['apiKey', 'accessToken'] },
      family: 'resource',
      status: 200,
    },
    (c) => {
      const { models, defaultModel } = deps.config.current();
      return c.json({
        data: Object.entries(models).map(([id, model]) => ({ id, default: id === defaultModel, price: model.price, capabilities: model.capabilities })),
      });
    },
  );
}
