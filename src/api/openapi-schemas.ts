import { z } from 'zod';
import { EVENT_KINDS } from '../domain/events.js';
import { TASK_STATUSES } from '../domain/tasks.js';

/** Answer shapes, for the API description only (requests are described by the schemas that validate them). */
const Timestamp = z.string().describe('ISO 8601 with milliseconds, UTC');
const Usd = z.string().describe('decimal USD, e.g. "0.0002"');

export const SchemaIssue = z.object({ path: z.array(z.union([z.string(), z.number()])), code: z.string(), expected: z.string(), actual: z.string(), message: z.string() });
export const ImageSchemaRejection = z.object({ data: z.unknown().describe('the request body as sent'), error: z.array(SchemaIssue), success: z.literal(false) });
export const ResourceSchemaRejection = z.object({ success: z.literal(false), errors: z.array(SchemaIssue) });
export const ErrorBody = z.object({
  code: z.string(),
  message: z.string().optional(),
  scopes: z.object({ required: z.array(z.string()).optional(), current: z.array(z.string()).optional(), requested: z.array(z.string()).optional(), allowed: z.array(z.string()).optional() }).optional(),
});

export const Task = z.object({
  id: z.string(),
  status: z.enum(TASK_STATUSES as [string, ...string[]]),
  type: z.string(),
  cost: Usd,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  request: z.record(z.string(), z.unknown()),
  result: z.unknown().nullable(),
  errors: z.array(z.object({ code: z.string(), message: z.string().optional() })).optional(),
  apiKeyId: z.string().nullable(),
  userId: z.string(),
  metadata: z.unknown().nullable(),
});
export const ApiKey = z.object({ id: z.string(), keyPreview: z.string(), userId: z.string(), name: z.string().optional(), scopes: z.array(z.string()), spendingLimit: Usd.optional(), spendingLimitPeriod: z.enum(['day', 'week', 'month']), createdAt: Timestamp });
export const Webhook = z.object({ id: z.string(), userId: z.string(), url: z.string(), enabled: z.boolean(), events: z.array(z.string()).nullable(), secret: z.string(), createdAt: Timestamp, updatedAt: Timestamp });
export const Destination = z.object({ id: z.string(), name: z.string(), provider: z.object({ id: z.string() }), config: z.record(z.string(), z.unknown()), createdAt: Timestamp, updatedAt: Timestamp });
export const Delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  webhookId: z.string().nullable(),
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(z.object({ at: Timestamp, status: z.number().nullable(), latencyMs: z.number(), error: z.string().optional() })),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export const CreatedTask = z.object({ taskId: z.string(), estimatedCost: Usd.optional(), access: z.object({ publicAccessToken: z.string() }).optional() });
export const SyncResults = z.object({ task: z.object({ id: z.string(), status: z.string(), cost: Usd.optional() }), results: z.array(z.record(z.string(), z.unknown())).optional() });
export const UploadedFile = z.object({ id: z.string(), url: z.string(), service_url: z.string(), format: z.enum(['png', 'jpg', 'webp']), size: z.string(), bytes: z.number(), filename: z.string() });

/** The webhook event envelope (OpenAPI `webhooks`). */
export const EventEnvelope = z.object({
  id: z.string().describe('the event id; also the webhook-id header, the same on every retry'),
  type: z.enum(EVENT_KINDS),
  createdAt: Timestamp,
  data: z.object({
    taskId: z.string(),
    taskType: z.string(),
    status: z.enum(['completed', 'failed']),
    cost: Usd,
    result: z.unknown().optional().describe('.completed events: the task result, as GET /tasks/{id}/result'),
    errors: z.array(z.object({ code: z.string(), message: z.string().optional() })).optional().describe('.failed events'),
    metadata: z.unknown().nullable(),
  }),
});

const data = (schema: z.ZodType) => z.object({ data: schema });

/** Success answers by route ("METHOD /path" in hono syntax). */
export const RESPONSES: Record<string, z.ZodType> = {
  'POST /image/generate': data(CreatedTask),
  'POST /image/remove-background': data(CreatedTask),
  'POST /image/rate': data(SyncResults),
  'POST /image/alt': data(SyncResults),
  'POST /image/upload': data(z.object({ files: z.array(UploadedFile) })),
  'GET /tasks': z.object({ data: z.array(Task), nextCursor: z.string().nullable() }),
  'GET /tasks/:id': data(Task),
  'GET /tasks/:id/status': data(z.object({ status: z.enum(TASK_STATUSES as [string, ...string[]]) })),
  'GET /tasks/:id/result': data(z.object({ id: z.string(), status: z.string(), type: z.string(), result: z.unknown().nullable() })),
  'POST /tasks/estimate': data(z.object({ type: z.string(), estimatedCost: Usd, items: z.array(Usd), currency: z.literal('USD') })),
  'POST /api-key': data(z.object({ apiKey: ApiKey, raw: z.string().describe('the full key, shown only here') })),
  'GET /api-key': data(z.array(ApiKey)),
  'GET /api-key/:id': data(ApiKey),
  'DELETE /api-key/:id': data(z.object({ id: z.string(), deleted: z.literal(true) })),
  'POST /webhook': data(Webhook),
  'GET /webhook': data(z.array(Webhook)),
  'GET /webhook/:id': data(Webhook),
  'PATCH /webhook/:id': data(Webhook),
  'DELETE /webhook/:id': data(z.object({ id: z.string(), deleted: z.literal(true) })),
  'POST /webhook/:id/rotate-secret': data(Webhook),
  'POST /webhook/:id/test': data(Delivery),
  'GET /webhook/:id/deliveries': data(z.array(Delivery)),
  'POST /webhook/deliveries/:deliveryId/redeliver': data(Delivery),
  'POST /destinations': data(Destination),
  'GET /destinations': data(z.array(Destination)),
  'GET /destinations/:id': data(Destination),
  'PATCH /destinations/:id': data(Destination),
  'DELETE /destinations/:id': data(z.object({ id: z.string(), deleted: z.literal(true) })),
  'POST /destinations/:id/test': data(z.object({ ok: z.literal(true), key: z.string(), url: z.string().nullable() })),
};
