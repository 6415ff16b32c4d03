import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { ApiKey } from './schemas.js';

export const GetApiKeyResponse = dataOf(ApiKey);
export type GetApiKeyResponse = z.infer<typeof GetApiKeyResponse>;

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
      response: GetApiKeyResponse,
      errors: ['API_KEY_NOT_FOUND'],
    },
    async (c, { principal }) => ({ body: { data: await deps.apiKeys.get(principal.accountId, c.req.param('id')!) } }),
  );
}
