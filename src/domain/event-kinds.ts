/** A delivery check sent by `imgtask webhooks test` / `POST /webhook/{id}/test`, to that webhook only. */
export const TEST_EVENT_KIND = 'webhook.test';

/**
 * A budget threshold reached: an account's month, or a key's spending limit period (see services/billing-alerts.ts).
 */
export const BILLING_THRESHOLD_EVENT = 'billing.threshold_reached';

/** The event kind of a settled task, `task.<type>.completed` or `task.<type>.failed` (docs/api/webhooks.md). */
export function taskEventKind<Type extends string, Status extends string>(
  type: Type,
  status: Status,
): `task.${Type}.${Status}` {
  return `task.${type}.${status}`;
}

/** Whether a webhook subscribed to `events` (null = all) receives an event of this task type and status. */
export function eventMatches(
  events: readonly string[] | null,
  taskType: string,
  status: 'completed' | 'failed',
): boolean {
  if (events === null || events.includes('all')) return true;
  return events.includes(taskEventKind(taskType, status)) || events.includes(`task.${status}`);
}
