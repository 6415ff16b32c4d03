import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerApiKeysDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/api-key/:id',
      summary: 'Delete (revoke) an API key; it stops working at once',
      guard: { accept: ['accessToken'], scope: 'keys' },
      family: 'resource',
      status: 200,
      errors: ['API_KEY_NOT_FOUND'],
    },
    async (c, { principal }) => {
      const key = await deps.apiKeys.revoke(principal.accountId, c.req.param('id')!);
      return c.json({ data: { id: key.id, deleted: true } });
    },
  );
}
