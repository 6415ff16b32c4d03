import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Webhook } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const RotateWebhookSecretResponse = dataOf(Webhook);
export type RotateWebhookSecretResponse = z.infer<typeof RotateWebhookSecretResponse>;

export function registerWebhooksRotateSecret(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/:id/rotate-secret',
      summary: 'Replace the signing secret; the answer carries the new one',
      status: 200,
      response: RotateWebhookSecretResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    ({ accountId, id }) => deps.webhooks.rotateSecret(accountId, id),
  );
}
