import type { Hono } from 'hono';
import { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Webhook } from './schemas.js';

export const ListWebhooksResponse = dataOf(z.array(Webhook));
export type ListWebhooksResponse = z.infer<typeof ListWebhooksResponse>;

export function registerWebhooksList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook',
      summary: "List the account's webhooks",
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: ListWebhooksResponse,
      errors: [],
    },
    async (_c, { principal }) => ({ body: { data: await deps.webhooks.list(principal.accountId) } }),
  );
}
