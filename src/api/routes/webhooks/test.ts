import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Delivery } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const TestWebhookResponse = dataOf(Delivery);
export type TestWebhookResponse = z.infer<typeof TestWebhookResponse>;

export function registerWebhooksTest(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/:id/test',
      summary: 'Send a webhook.test event to this webhook',
      status: 202,
      response: TestWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    ({ accountId, id }) => deps.webhooks.sendTest(accountId, id),
  );
}
