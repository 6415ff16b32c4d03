import type { TaskRecord } from '../records/tasks.js';
import type {
  DeliveryAttempt,
  DeliveryRecord,
  EventRecord,
  WebhookChanges,
  WebhookHealth,
  WebhookRecord,
} from '../records/webhooks.js';

export interface WebhookRepo {
  put(webhook: WebhookRecord): Promise<WebhookRecord>;
  /** Applies `changes` to the webhook as stored, in one write; undefined when it is gone. */
  update(id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined>;
  /**
   * Counts a delivery attempt in the webhook's health as stored, in one write (never undoing
   * another write, never bringing back a deleted webhook). Returns the record when this attempt
   * disabled the webhook, else undefined.
   */
  recordHealth(id: string, health: WebhookHealth): Promise<WebhookRecord | undefined>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<WebhookRecord | undefined>;
  listByAccount(accountId: string): Promise<WebhookRecord[]>;
  /** Records an event with all its deliveries, and marks its task, in one write. */
  recordEvent(event: EventRecord, deliveries: DeliveryRecord[]): Promise<void>;
  /** Marks a settled task whose event no endpoint wanted (nothing else is stored). */
  markNoEvent(taskId: string): Promise<void>;
  getEvent(id: string): Promise<EventRecord | undefined>;
  /** Settled tasks whose event was never recorded (a crash fell between). */
  settledWithoutEvent(): Promise<TaskRecord[]>;
  recordAttempt(
    id: string,
    attempt: DeliveryAttempt,
    status: DeliveryRecord['status'],
    nextAttemptAt: string | null,
  ): Promise<DeliveryRecord>;
  redeliver(id: string, at: string): Promise<DeliveryRecord | undefined>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  pendingDeliveries(): Promise<DeliveryRecord[]>;
  /**
   * Pending deliveries in the order they fall due (then by id), leaving out the ids in `skip`
   * (those already in flight): at most `limit`, due or not. SQL: ORDER BY next_attempt_at, id LIMIT.
   */
  nextDeliveries(limit: number, skip: ReadonlySet<string>): Promise<DeliveryRecord[]>;
  /** A webhook's deliveries, newest first. */
  deliveriesOf(webhookId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Every delivery of one event (a task's: one per endpoint it went to), in id order. */
  deliveriesOfEvent(eventId: string): Promise<DeliveryRecord[]>;
  deliveryCounts(): Promise<{ pending: number; delivered: number; failed: number }>;
  listAll(): Promise<WebhookRecord[]>;
  /**
   * Replaces a recorded event's payload (a deleted task's: its scrubbed envelope); pending deliveries then send that.
   * False when there is no such event.
   */
  replaceEventPayload(eventId: string, payload: unknown): Promise<boolean>;
  /**
   * Deletes deliveries no longer pending whose last change (updatedAt) is before `before`, at most
   * `limit`, and the events left with no delivery; answers how many deliveries were deleted.
   * `accountId`: only that account's (an erase), whatever their age or status.
   */
  purgeDeliveries(before: string, limit: number, accountId?: string): Promise<number>;
}
