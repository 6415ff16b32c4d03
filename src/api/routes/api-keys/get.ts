import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerApiKeysGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/api-key/:id',
      summary: 'Read one live API key of the account',
      guard: { accept: ['accessToken'], scope: 'keys' },
      family: 'resource',
      status: 200,
      errors: ['API_KEY_NOT_FOUND'],
    },
    async (c, { principal }) => c.json({ data: await deps.apiKeys.get(principal.accountId, c.req.param('id')!) }),
  );
}
