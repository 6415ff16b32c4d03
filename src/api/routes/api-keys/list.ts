import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerApiKeysList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    { method: 'get', path: '/api-key', summary: "List the account's live API keys, oldest first", guard: { accept: ['accessToken'], scope: 'keys' }, family: 'resource', status: 200 },
    async (c, { principal }) => c.json({ data: await deps.apiKeys.list(principal.accountId) }),
  );
}
