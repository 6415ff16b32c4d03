import type { Hono } from 'hono';
import { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { ApiKeyIds, Events, Webhook, WebhookUrl } from './schemas.js';
/** Any of url, events, apiKeyIds, enabled; re-enabling clears the record of failures that disabled it. */
export const UpdateWebhookBody = z.object({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  apiKeyIds: ApiKeyIds.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const UpdateWebhookResponse = dataOf(Webhook);
export type UpdateWebhookResponse = z.infer<typeof UpdateWebhookResponse>;

export function registerWebhooksUpdate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'patch',
      path: '/webhook/:id',
      summary: 'Update url, events, apiKeyIds or enabled',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      body: UpdateWebhookBody,
      status: 200,
      response: UpdateWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_API_KEY_NOT_FOUND'],
    },
    async (c, { principal, body }) => ({
      body: { data: await deps.webhooks.update(principal.accountId, c.req.param('id')!, body) },
    }),
  );
}
