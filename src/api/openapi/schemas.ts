import { z } from 'zod';
import { BILLING_THRESHOLD_EVENT, TEST_EVENT_KIND, taskEventKind } from '../../domain/event-kinds.js';
import { TASK_ERROR_CODES } from '../../domain/task-status.js';
import { TASK_MODULES } from '../../task-types/task-modules.js';
import { Timestamp, Usd } from '../common-schemas.js';
import { ApiKey } from '../routes/api-keys/schemas.js';
import { Destination } from '../routes/destinations/schemas.js';
import { PendingTaskAnswer } from '../routes/image/schemas.js';
import { UploadedFile } from '../routes/image/upload.js';
import { CredentialsReport } from '../routes/image/verify.js';
import { Model } from '../routes/models/list.js';
import { Task, TaskProgress, TaskResult, TaskStatusSchema } from '../routes/tasks/schemas.js';
import { VideoModel } from '../routes/video/models.js';
import { Delivery, EventKind, Webhook } from '../routes/webhooks/schemas.js';

/**
 * Error and event shapes, and the names of the schemas the API description shows under
 * `components.schemas` (each route's own schemas describe its request and answer; a schema
 * named here is referenced with $ref wherever an answer contains it, so generated clients
 * get one named type for it).
 */
export const componentNames = z.registry<{ id: string }>();
const named = <T extends z.ZodType>(id: string, schema: T): T => {
  componentNames.add(schema, { id });
  return schema;
};

const SchemaIssue = named(
  'SchemaIssue',
  z.object({
    path: z.array(z.union([z.string(), z.number()])).describe('where in the body (or query) the value is'),
    code: z.string(),
    expected: z.string(),
    actual: z.string(),
    message: z.string(),
  }),
);
export const ImageSchemaRejection = named(
  'ImageSchemaRejection',
  z
    .object({
      data: z.unknown().describe('the request body as sent'),
      error: z.array(SchemaIssue),
      success: z.literal(false),
    })
    .describe('A body failing the schema of an /image/* route'),
);
export const ResourceSchemaRejection = named(
  'ResourceSchemaRejection',
  z
    .object({ success: z.literal(false), errors: z.array(SchemaIssue) })
    .describe('A body or query failing the schema of a resource route (/tasks, /api-key, /webhook, /destinations)'),
);
export const ErrorBody = named(
  'Error',
  z
    .object({
      code: z.string().describe('the error code; each answer lists the codes it can carry'),
      message: z.string().optional(),
      scopes: z
        .object({
          required: z.array(z.string()).optional(),
          current: z.array(z.string()).optional(),
          requested: z.array(z.string()).optional(),
          allowed: z.array(z.string()).optional(),
        })
        .optional()
        .describe('INSUFFICIENT_SCOPE and SCOPE_ESCALATION: the scopes involved'),
    })
    .describe('A request error: the flat { code, message? } of every non-2xx answer but schema rejections'),
);

// Resources and pieces every client names.
named('TaskStatus', TaskStatusSchema);
named('Task', Task);
named('TaskResult', TaskResult);
named('TaskProgress', TaskProgress);
named('ApiKey', ApiKey);
named('Destination', Destination);
named('Webhook', Webhook);
named('WebhookDelivery', Delivery);
named('WebhookEventKind', EventKind);
named('Model', Model);
named('VideoModel', VideoModel);
named('UploadedFile', UploadedFile);
named('PendingTaskAnswer', PendingTaskAnswer);
named('CredentialsReport', CredentialsReport);
const TaskErrorCode = named('TaskErrorCode', z.enum(TASK_ERROR_CODES));

/** `image.remove_background` → `ImageRemoveBackground`. */
const pascal = (type: string) => type.replace(/(^|[._])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

// Each task type: its task, its result view, its result and the items the result lists.
for (const [i, module] of TASK_MODULES.entries()) {
  const name = pascal(module.type);
  named(`${name}Task`, Task.options[i]);
  named(`${name}TaskResult`, TaskResult.options[i]);
  named(`${name}Result`, module.result);
}
const [generate, rate, alt, removeBackground, video, review] = TASK_MODULES;
named('ImageItem', generate.result.shape.images.element);
named('ImageRateItem', rate.result.shape.results.element);
named('ImageAltItem', alt.result.shape.results.element);
named('ImageRemoveBackgroundImage', removeBackground.result.shape.image);
named('VideoItem', video.result.shape.videos.element);
named('ImageReviewFinding', review.result.shape.findings.element);

const envelope = <Type extends z.ZodType, Data extends z.ZodType>(type: Type, data: Data) =>
  z.object({
    id: z.string().describe('the event id; also the webhook-id header, the same on every retry'),
    type,
    createdAt: Timestamp,
    data,
  });
const taskData = { taskId: z.string(), cost: Usd, metadata: z.unknown().nullable().describe("the task's metadata") };

/** The payload of each event a webhook receives (OpenAPI `webhooks`), by event type. */
export const EVENT_PAYLOADS: { type: string; schema: z.ZodType; completed?: boolean }[] = [];
for (const module of TASK_MODULES) {
  const name = pascal(module.type);
  const completed = named(
    `${name}CompletedEvent`,
    envelope(
      z.literal(taskEventKind(module.type, 'completed')),
      z
        .object({
          ...taskData,
          taskType: z.literal(module.type),
          status: z.literal('completed'),
          result: module.result,
        })
        .describe('the task, with its result as GET /tasks/{id}/result shows it'),
    ),
  );
  const failed = named(
    `${name}FailedEvent`,
    envelope(
      z.literal(taskEventKind(module.type, 'failed')),
      z.object({
        ...taskData,
        taskType: z.literal(module.type),
        status: z.literal('failed'),
        errors: z.array(z.object({ code: TaskErrorCode, message: z.string().optional() })),
      }),
    ),
  );
  EVENT_PAYLOADS.push(
    { type: taskEventKind(module.type, 'completed'), schema: completed, completed: true },
    { type: taskEventKind(module.type, 'failed'), schema: failed, completed: false },
  );
}

/** Sent by POST /webhook/{id}/test to that webhook only, whatever it subscribes to. */
export const TestEvent = named(
  'WebhookTestEvent',
  envelope(z.literal(TEST_EVENT_KIND), z.object({ webhookId: z.string() })),
);

/** A budget threshold reached (services/billing-alerts.ts): once per account or key, period and threshold. */
export const BillingThresholdEvent = named(
  'BillingThresholdReachedEvent',
  envelope(
    z.literal(BILLING_THRESHOLD_EVENT),
    z.object({
      scope: z
        .enum(['account', 'key'])
        .describe("account: the account's budget for the UTC month; key: the key's spending limit"),
      accountId: z.string(),
      apiKeyId: z.string().optional().describe('the key, for scope key'),
      period: z
        .string()
        .describe(
          "2026-11 (an account's month) or the key's limit period: d:2026-11-22, w:2026-11-16 (the Monday), m:2026-11",
        ),
      threshold: z.number().int().describe('percent'),
      used: Usd.describe('account: charged this month; key: its spend in the period (charges and pending reserves)'),
      limit: Usd.describe('account: charged this month plus the balance; key: the spending limit'),
    }),
  ),
);
