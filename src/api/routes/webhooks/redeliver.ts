import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Delivery } from './schemas.js';

export const RedeliverResponse = dataOf(Delivery);
export type RedeliverResponse = z.infer<typeof RedeliverResponse>;

export function registerWebhooksRedeliver(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/webhook/deliveries/:deliveryId/redeliver',
      summary: 'Send a delivery again (same event id)',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 202,
      response: RedeliverResponse,
      errors: ['WEBHOOK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: await deps.outbox.redeliver(principal.accountId, c.req.param('deliveryId')!) },
    }),
  );
}
