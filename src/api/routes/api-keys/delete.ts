import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { Deleted, dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';

export const DeleteApiKeyResponse = dataOf(Deleted);
export type DeleteApiKeyResponse = z.infer<typeof DeleteApiKeyResponse>;

export function registerApiKeysDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/api-key/:id',
      summary: 'Delete (revoke) an API key; it stops working at once',
      guard: { accept: ['accessToken'], scope: 'keys' },
      response: DeleteApiKeyResponse,
      errors: ['API_KEY_NOT_FOUND'],
    },
    async ({ principal, id }) => {
      const key = await deps.apiKeys.revoke(principal.accountId, id);
      return { id: key.id, deleted: true as const };
    },
  );
}
