import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { Deleted, dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export const DeleteWebhookResponse = dataOf(Deleted);
export type DeleteWebhookResponse = z.infer<typeof DeleteWebhookResponse>;

export function registerWebhooksDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/webhook/:id',
      summary: 'Delete a webhook; its pending deliveries are dropped',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: DeleteWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => {
      const id = c.req.param('id')!;
      await deps.webhooks.delete(principal.accountId, id);
      return { body: { data: { id, deleted: true as const } } };
    },
  );
}
