import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Delivery } from './schemas.js';

export const TestWebhookResponse = dataOf(Delivery);
export type TestWebhookResponse = z.infer<typeof TestWebhookResponse>;

export function registerWebhooksTest(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/:id/test',
      summary: 'Send a webhook.test event to this webhook',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 202,
      response: TestWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: await deps.outbox.sendTest(principal.accountId, c.req.param('id')!) },
    }),
  );
}
