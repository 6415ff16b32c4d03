import { type DeliveryResult, deliverWebhook } from '../webhooks/deliver.js';
import { newWebhookSecret } from '../webhooks/sign.js';

/** How long a receiver has to answer a forwarded event: a delivery's own default (webhooks.timeoutMs). */
const FORWARD_TIMEOUT_MS = 15_000;

/**
 * What `imgtask webhooks listen` posts each event with: the delivery code of dashboard webhooks
 * (the same body, the Standard Webhooks headers signed with `secret`, a new one unless given,
 * the same answer and error wording), to a URL of the developer's own choosing, so loopback and
 * private addresses are allowed. Nothing is retried: the event is the stream's, not a delivery.
 */
export function createEventForwarder(url: string, secret: string = newWebhookSecret()) {
  return {
    secret,
    forward: (event: { id: string; body: string }): Promise<DeliveryResult> =>
      deliverWebhook({ url, secret }, event, {
        timeoutMs: FORWARD_TIMEOUT_MS,
        allowPrivateAddresses: true,
        now: () => Date.now(),
      }),
  };
}
