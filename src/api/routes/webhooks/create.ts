import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Webhook, webhookSettings } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

/**
 * `{ url, events?, apiKeyIds? }`: events null (or omitted) for every kind; apiKeyIds limit it to tasks those keys
 * create.
 */
export const CreateWebhookBody = z.object(webhookSettings);
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const CreateWebhookResponse = dataOf(Webhook);
export type CreateWebhookResponse = z.infer<typeof CreateWebhookResponse>;

export function registerWebhooksCreate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook',
      summary: 'Create a dashboard webhook; the answer carries its signing secret',
      body: CreateWebhookBody,
      status: 201,
      response: CreateWebhookResponse,
      errors: ['WEBHOOK_API_KEY_NOT_FOUND'],
    },
    ({ accountId, body }) => deps.webhooks.create(accountId, body),
  );
}
