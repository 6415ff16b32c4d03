import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Webhook } from './schemas.js';

export const RotateWebhookSecretResponse = dataOf(Webhook);
export type RotateWebhookSecretResponse = z.infer<typeof RotateWebhookSecretResponse>;

export function registerWebhooksRotateSecret(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/:id/rotate-secret',
      summary: 'Replace the signing secret; the answer carries the new one',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: RotateWebhookSecretResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: await deps.webhooks.rotateSecret(principal.accountId, c.req.param('id')!) },
    }),
  );
}
