import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { ApiKey } from './schemas.js';

export const GetApiKeyResponse = dataOf(ApiKey);
export type GetApiKeyResponse = z.infer<typeof GetApiKeyResponse>;

export function registerApiKeysGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/api-key/:id',
      summary: 'Read one live API key of the account',
      guard: { accept: ['accessToken'], scope: 'keys' },
      response: GetApiKeyResponse,
      errors: ['API_KEY_NOT_FOUND'],
    },
    ({ principal, id }) => deps.apiKeys.get(principal.accountId, id),
  );
}
