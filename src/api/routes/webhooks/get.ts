import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Webhook } from './schemas.js';

export const GetWebhookResponse = dataOf(Webhook);
export type GetWebhookResponse = z.infer<typeof GetWebhookResponse>;

export function registerWebhooksGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook/:id',
      summary: 'Read a webhook',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: GetWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => ({ body: { data: await deps.webhooks.get(principal.accountId, c.req.param('id')!) } }),
  );
}
