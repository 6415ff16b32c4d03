import { z } from 'zod';
import { CreateWebhookBody } from '../../api/routes/webhooks/create.js';
import { UpdateWebhookBody } from '../../api/routes/webhooks/update.js';
import { AccountRef } from './accounts.js';
import { adminOp } from './op.js';

const WebhookId = z.object({ id: z.string().min(1) });

/** The webhook routes' bodies and not-found codes, on any account's webhooks. */
export const webhookOps = {
  'webhooks.create': adminOp({
    args: CreateWebhookBody.extend({ account: AccountRef }),
    run: async (s, a) => {
      const { account, ...body } = a;
      return s.webhooks.create((await s.accounts.find(account)).id, body);
    },
  }),
  'webhooks.list': adminOp({
    args: z.object({ account: AccountRef }),
    run: async (s, a) => s.webhooks.listDetails((await s.accounts.find(a.account)).id),
  }),
  'webhooks.show': adminOp({ args: WebhookId, run: (s, a) => s.webhooks.operatorView(null, a.id) }),
  'webhooks.update': adminOp({
    args: UpdateWebhookBody.extend(WebhookId.shape),
    run: (s, { id, ...changes }) => s.webhooks.update(null, id, changes),
  }),
  'webhooks.delete': adminOp({
    args: WebhookId,
    run: async (s, a) => {
      await s.webhooks.delete(null, a.id);
      return { id: a.id, deleted: true as const };
    },
  }),
  'webhooks.rotate-secret': adminOp({ args: WebhookId, run: (s, a) => s.webhooks.rotateSecret(null, a.id) }),
  'webhooks.test': adminOp({ args: WebhookId, run: (s, a) => s.webhooks.sendTest(null, a.id) }),
  'webhooks.deliveries': adminOp({
    args: WebhookId.extend({ limit: z.number().int().min(1).max(1000).optional() }),
    run: (s, a) => s.webhooks.deliveries(null, a.id, a.limit),
  }),
  'webhooks.redeliver': adminOp({
    args: z.object({ deliveryId: z.string().min(1) }),
    run: (s, a) => s.webhooks.redeliver(null, a.deliveryId),
  }),
};
