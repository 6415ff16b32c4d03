import { z } from 'zod';
import { EVENT_KINDS } from '../../../task-types/task-modules.js';
import { Timestamp } from '../../common-schemas.js';

export const WebhookUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(2048);
/** A subscription value: an event kind to receive, `all`, or `task.completed|failed` for every type's. */
export const EventKind = z
  .enum(EVENT_KINDS, {
    error: (issue) => `unknown event kind ${String(issue.input)}; known: ${EVENT_KINDS.join(', ')}`,
  })
  .describe('a subscription value: `all`, `task.completed`, `task.failed` or `task.<type>.completed|failed`');
/** Event kinds to receive; null (or omitted, or ["all"]) for every kind. */
export const Events = z.array(EventKind).min(1).max(EVENT_KINDS.length).nullable();
export const ApiKeyIds = z.array(z.string().min(1).max(64)).max(100);

/** What a webhook is set up with (POST /webhook); PATCH takes each of them optionally, and `enabled`. */
export const webhookSettings = { url: WebhookUrl, events: Events.optional(), apiKeyIds: ApiKeyIds.optional() };

/** The webhook resource, exactly as the API documents it (docs/api/webhooks.md). */
export const Webhook = z.object({
  id: z.string(),
  userId: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  events: z.array(EventKind).nullable().describe('the kinds subscribed to; null for every kind'),
  secret: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

/** One delivery of an event to one endpoint, with every attempt made. */
export const Delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  webhookId: z.string().nullable(),
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(
    z.object({ at: Timestamp, status: z.number().nullable(), latencyMs: z.number(), error: z.string().optional() }),
  ),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type Delivery = z.infer<typeof Delivery>;
