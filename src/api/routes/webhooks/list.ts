import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { Webhook } from './schemas.js';
import { addWebhookRoute } from './webhook-route.js';

export const ListWebhooksResponse = dataOf(z.array(Webhook));
export type ListWebhooksResponse = z.infer<typeof ListWebhooksResponse>;

export function registerWebhooksList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addWebhookRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook',
      summary: "List the account's webhooks",
      status: 200,
      response: ListWebhooksResponse,
      errors: [],
    },
    ({ accountId }) => deps.webhooks.list(accountId),
  );
}
