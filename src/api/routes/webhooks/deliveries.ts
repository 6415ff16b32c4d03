import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Delivery } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const ListDeliveriesResponse = dataOf(z.array(Delivery));
export type ListDeliveriesResponse = z.infer<typeof ListDeliveriesResponse>;

export function registerWebhooksDeliveries(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook/:id/deliveries',
      summary: "A webhook's deliveries, newest first, with every attempt (status, latency)",
      status: 200,
      response: ListDeliveriesResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    ({ accountId, id }) => deps.webhooks.deliveries(accountId, id),
  );
}
