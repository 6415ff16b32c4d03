import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { ApiKey } from './schemas.js';

export const ListApiKeysResponse = dataOf(z.array(ApiKey));
export type ListApiKeysResponse = z.infer<typeof ListApiKeysResponse>;

export function registerApiKeysList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/api-key',
      summary: "List the account's live API keys, oldest first",
      guard: { accept: ['accessToken'], scope: 'keys' },
      response: ListApiKeysResponse,
    },
    ({ principal }) => deps.apiKeys.list(principal.accountId),
  );
}
