import type { WebhookRecord } from '../../store/records.js';
import { open, seal } from '../secrets.js';

/** A webhook's signing secret sealed at rest with the secrets key (bound to the webhook's id). */
export const sealWebhookSecret = (secretsKey: Uint8Array, webhookId: string, secret: string): string =>
  seal(secretsKey, webhookId, secret);

/** The raw signing secret of a webhook: what the API shows and what delivery signs with. */
export const openWebhookSecret = (
  secretsKey: Uint8Array,
  webhook: Pick<WebhookRecord, 'id' | 'sealedSecret'>,
): string => open(secretsKey, webhook.id, webhook.sealedSecret);
