import { BILLING_THRESHOLD_EVENT, TEST_EVENT_KIND } from '../../domain/event-kinds.js';
import type { Convert, Json } from './converter.js';
import { BillingThresholdEvent, EVENT_PAYLOADS, TestEvent } from './schemas.js';
import { EVENTS_TAG } from './tags.js';

const pascal = (kind: string) => kind.replace(/(^|[._])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

/** The description's `webhooks`: the events the service sends, each as the request it makes. */
export function buildWebhooks(convert: Convert): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  const standardHeaders = (signed: string) =>
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
      name,
      in: 'header',
      required: name === 'webhook-id',
      description:
        name === 'webhook-id'
          ? 'the event id, the same on every retry'
          : `Standard Webhooks ${name.slice(8)} (${signed})`,
      schema: { type: 'string' },
    }));
  const webhook = (kind: string, summary: string, description: string, schema: Json, signed: string) => ({
    post: {
      operationId: `on${pascal(kind)}`,
      summary,
      description,
      tags: [EVENTS_TAG.name],
      security: [],
      parameters: standardHeaders(signed),
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: {
        '200': { description: 'Any 2xx marks the delivery delivered; anything else is retried on the schedule' },
      },
    },
  });
  const taskSigned = 'dashboard webhooks only; per-task custom endpoints are not signed';
  for (const { type, schema } of EVENT_PAYLOADS) {
    const [, taskType, status] = /^task\.(.+)\.(completed|failed)$/.exec(type)!;
    const carries = status === 'completed' ? 'the task result, as GET /tasks/{id}/result' : "the task's errors";
    webhooks[type] = webhook(
      type,
      `An ${taskType} task ${status}`,
      `Sent to subscribers of \`${type}\`, \`task.${status}\` and \`all\`; carries ${carries} and the task's metadata.`,
      convert(schema, 'output'),
      taskSigned,
    );
  }
  for (const status of ['completed', 'failed'] as const) {
    const oneOf = EVENT_PAYLOADS.filter((e) => e.completed === (status === 'completed')).map((e) =>
      convert(e.schema, 'output'),
    );
    webhooks[`task.${status}`] = webhook(
      `task.${status}`,
      `Any task ${status} (a subscription value)`,
      `A webhook subscribed to \`task.${status}\` receives the \`task.<type>.${status}\` event of every task type; the event's \`type\` names the task type.`,
      { oneOf },
      taskSigned,
    );
  }
  webhooks[TEST_EVENT_KIND] = webhook(
    TEST_EVENT_KIND,
    'A delivery check',
    'Sent by POST /webhook/{id}/test (imgtask webhooks test) to that webhook only, whatever it subscribes to.',
    convert(TestEvent, 'output'),
    'every webhook.test delivery is signed',
  );
  webhooks[BILLING_THRESHOLD_EVENT] = webhook(
    BILLING_THRESHOLD_EVENT,
    'A budget threshold reached',
    "Sent to the account's dashboard webhooks subscribed to `billing.threshold_reached` or `all` (a key's to those not bound to other keys) when a charge makes the account's month or a key's spending limit period reach a threshold of `billing.alerts.thresholds`: once per account or key, period and threshold.",
    convert(BillingThresholdEvent, 'output'),
    'every delivery is signed',
  );
  return webhooks;
}
