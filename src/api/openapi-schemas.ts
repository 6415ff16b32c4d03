import { z } from 'zod';
import { EVENT_KINDS } from '../tasks/index.js';
import { Timestamp, Usd } from './schemas.js';

/** Error and event shapes, for the API description (each route's own schemas describe its request and answer). */

const SchemaIssue = z.object({ path: z.array(z.union([z.string(), z.number()])), code: z.string(), expected: z.string(), actual: z.string(), message: z.string() });
export const ImageSchemaRejection = z.object({ data: z.unknown().describe('the request body as sent'), error: z.array(SchemaIssue), success: z.literal(false) });
export const ResourceSchemaRejection = z.object({ success: z.literal(false), errors: z.array(SchemaIssue) });
export const ErrorBody = z.object({
  code: z.string(),
  message: z.string().optional(),
  scopes: z
    .object({ required: z.array(z.string()).optional(), current: z.array(z.string()).optional(), requested: z.array(z.string()).optional(), allowed: z.array(z.string()).optional() })
    .optional(),
});

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
    errors: z
      .array(z.object({ code: z.string(), message: z.string().optional() }))
      .optional()
      .describe('.failed events'),
    metadata: z.unknown().nullable(),
  }),
});
