/** A delivery check sent by `imgtask webhooks test` / `POST /webhook/{id}/test`, to that webhook only. */
export const TEST_EVENT_KIND = 'webhook.test';

/** Whether a webhook subscribed to `events` (null = all) receives an event of this task type and status. */
export function eventMatches(events: readonly string[] | null, taskType: string, status: 'completed' | 'failed'): boolean {
  if (events === null || events.includes('all')) return true;
  return events.includes(`task.${taskType}.${status}`) || events.includes(`task.${status}`);
}

/** Standard Webhooks retry schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
