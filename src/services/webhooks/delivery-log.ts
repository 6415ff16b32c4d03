import { AppError } from '../../domain/errors.js';
import type { DeliveryAttempt, DeliveryRecord, EventRecord, WebhookRecord } from '../../store/records.js';
import type { Store } from '../../store/store-contract.js';
import { type Owner, ownedBy } from '../ports.js';

/** A delivery as the API shows it. */
export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  webhookId: string | null;
  url: string;
  status: DeliveryRecord['status'];
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The event a task's settlement recorded and each of its deliveries (the console's task inspector). */
export interface TaskDeliveries {
  event: EventRecord;
  deliveries: DeliveryView[];
}

/**
 * What managing webhooks asks of delivery (webhooks/outbox.ts implements it): a delivery
 * queued, due at once, and the dispatcher told. Nothing else of delivery is seen from here.
 */
export interface DeliveryQueue {
  /** Queues a `webhook.test` event for one webhook, whatever it subscribes to. */
  queueTest(webhook: WebhookRecord): Promise<DeliveryRecord>;
  /** Queues a delivery again (same event id); undefined when it is gone. */
  queueAgain(deliveryId: string): Promise<DeliveryRecord | undefined>;
}

/** A webhook's delivery log, and the test and redeliver actions on it (part of the WebhookService). */
export interface DeliveryLog {
  /** A `webhook.test` event delivered to one webhook, whatever it subscribes to. */
  sendTest(owner: Owner, webhookId: string): Promise<DeliveryView>;
  /** A delivery sent again, with the same event id. */
  redeliver(owner: Owner, deliveryId: string): Promise<DeliveryView>;
  /** The webhook's deliveries, newest first (at most `limit`, default 50), with every attempt. */
  deliveries(owner: Owner, webhookId: string, limit?: number): Promise<DeliveryView[]>;
  /**
   * The event a task's settlement recorded and each of its deliveries with every attempt (the
   * console's task inspector); null while none is recorded (pending, or no endpoint wanted it).
   * Another account's task is TASK_NOT_FOUND.
   */
  taskDeliveries(owner: Owner, taskId: string): Promise<TaskDeliveries | null>;
}

const viewOf = (d: DeliveryRecord, eventType: string): DeliveryView => ({
  id: d.id,
  eventId: d.eventId,
  eventType,
  webhookId: d.webhookId,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
});

/** The delivery log of an account's webhooks and tasks, and the test and redeliver actions on it. */
export function createDeliveryLog(deps: {
  store: Store;
  queue: DeliveryQueue;
  owned: (owner: Owner, webhookId: string) => Promise<WebhookRecord>;
}): DeliveryLog {
  const { store } = deps;
  const view = async (d: DeliveryRecord): Promise<DeliveryView> =>
    viewOf(d, (await store.webhooks.getEvent(d.eventId))?.type ?? 'unknown');

  return {
    async sendTest(owner, webhookId) {
      const record = await deps.queue.queueTest(await deps.owned(owner, webhookId));
      return view((await store.webhooks.getDelivery(record.id))!);
    },
    async redeliver(owner, deliveryId) {
      const d = await store.webhooks.getDelivery(deliveryId);
      if (!d || !ownedBy(owner, d.accountId)) throw new AppError('WEBHOOK_NOT_FOUND', `no delivery ${deliveryId}`);
      return view((await deps.queue.queueAgain(deliveryId))!);
    },
    async deliveries(owner, webhookId, limit = 50) {
      await deps.owned(owner, webhookId);
      return Promise.all((await store.webhooks.deliveriesOf(webhookId, limit)).map(view));
    },
    async taskDeliveries(owner, taskId) {
      const task = await store.tasks.get(taskId);
      if (!task || !ownedBy(owner, task.accountId)) throw new AppError('TASK_NOT_FOUND');
      const event = task.eventId ? await store.webhooks.getEvent(task.eventId) : undefined;
      if (!event) return null;
      const deliveries = await store.webhooks.deliveriesOfEvent(event.id);
      return { event, deliveries: deliveries.map((d) => viewOf(d, event.type)) };
    },
  };
}
