import { z } from 'zod';
import { EVENT_KINDS } from '../../../domain/events.js';

const WebhookUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(2048);
/** Event kinds to receive; null (or omitted, or ["all"]) for every kind. */
const Events = z.array(z.enum(EVENT_KINDS)).min(1).max(EVENT_KINDS.length).nullable();
const ApiKeyIds = z.array(z.string().min(1).max(64)).max(100);

export const CreateWebhookBody = z.object({ url: WebhookUrl, events: Events.optional(), apiKeyIds: ApiKeyIds.optional() });
export const UpdateWebhookBody = z.object({ url: WebhookUrl.optional(), events: Events.optional(), apiKeyIds: ApiKeyIds.optional(), enabled: z.boolean().optional() });
