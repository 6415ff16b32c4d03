import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Webhook, WebhookUrl, webhookSettings } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

/** Any of url, events, apiKeyIds, enabled; re-enabling clears the record of failures that disabled it. */
export const UpdateWebhookBody = z.object({
  ...webhookSettings,
  url: WebhookUrl.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const UpdateWebhookResponse = dataOf(Webhook);
export type UpdateWebhookResponse = z.infer<typeof UpdateWebhookResponse>;

export function registerWebhooksUpdate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'patch',
      path: '/webhook/:id',
      summary: 'Update url, events, apiKeyIds or enabled',
      body: UpdateWebhookBody,
      status: 200,
      response: UpdateWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_API_KEY_NOT_FOUND'],
    },
    ({ accountId, id, body }) => deps.webhooks.update(accountId, id, body),
  );
}
