import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Delivery } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const RedeliverResponse = dataOf(Delivery);
export type RedeliverResponse = z.infer<typeof RedeliverResponse>;

export function registerWebhooksRedeliver(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/deliveries/:deliveryId/redeliver',
      summary: 'Send a delivery again (same event id)',
      status: 202,
      response: RedeliverResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    ({ accountId, id }) => deps.webhooks.redeliver(accountId, id),
  );
}
