import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { Deleted, dataOf } from '../../common-schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const DeleteWebhookResponse = dataOf(Deleted);
export type DeleteWebhookResponse = z.infer<typeof DeleteWebhookResponse>;

export function registerWebhooksDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/webhook/:id',
      summary: 'Delete a webhook; its pending deliveries are dropped',
      status: 200,
      response: DeleteWebhookResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async ({ accountId, id }) => {
      await deps.webhooks.delete(accountId, id);
      return { id, deleted: true as const };
    },
  );
}
