import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Webhook } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const GetWebhookResponse = dataOf(Webhook);
export type GetWebhookResponse = z.infer<typeof GetWebhookResponse>;

export function registerWebhooksGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook/:id',
      summary: 'Read a webhook',
      status: 200,
      response: GetWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    ({ accountId, id }) => deps.webhooks.get(accountId, id),
  );
}
