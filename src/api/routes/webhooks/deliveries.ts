import type { Hono } from 'hono';
import { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Delivery } from './schemas.js';

export const ListDeliveriesResponse = dataOf(z.array(Delivery));
export type ListDeliveriesResponse = z.infer<typeof ListDeliveriesResponse>;

export function registerWebhooksDeliveries(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook/:id/deliveries',
      summary: "A webhook's deliveries, newest first, with every attempt (status, latency)",
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: ListDeliveriesResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: await deps.outbox.deliveries(principal.accountId, c.req.param('id')!) },
    }),
  );
}
