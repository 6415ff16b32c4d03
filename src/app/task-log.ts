import type { EventBus } from '../services/event-bus.js';
import type { Store } from '../store/store-contract.js';
import type { AttemptOutcome } from '../webhooks/dispatcher.js';
import type { Logger } from './logger.js';

/**
 * Task lifecycle lines: one when it settles (status, cost, how long it took from creation, the
 * first error code), and one when it is created (type, items, estimate) at debug: at info the
 * create's access line carries those (src/api/access-log.ts), and one fact is logged once.
 * Amounts are USD. Returns the unsubscribe function.
 */
export function logTaskLifecycle(events: EventBus, logger: Logger): () => void {
  const off = [
    events.on('task:created', ({ task }) => {
      logger.debug(
        {
          event: 'task.created',
          taskId: task.id,
          type: task.type,
          accountId: task.accountId,
          keyId: task.apiKeyId ?? undefined,
          items: task.items.length,
          estimateUsd: task.estimate / 1e6,
        },
        `task ${task.id} created (${task.type})`,
      );
    }),
    events.on('task:settled', ({ task }) => {
      const ms = Date.parse(task.updatedAt) - Date.parse(task.createdAt);
      const failedItems = task.items.filter((item) => item.status === 'failed').length;
      const errorCode = task.errors?.[0]?.code ?? task.items.find((item) => item.status === 'failed')?.error?.code;
      logger.info(
        {
          event: 'task.settled',
          taskId: task.id,
          type: task.type,
          status: task.status,
          accountId: task.accountId,
          costUsd: task.cost / 1e6,
          items: task.items.length,
          failedItems,
          errorCode,
          ms,
        },
        `task ${task.id} ${task.status} (${task.type})`,
      );
    }),
  ];
  return () => {
    for (const unsubscribe of off) unsubscribe();
  };
}

/**
 * One line per webhook delivery attempt: delivery and event ids, event type, the delivery's
 * status after the attempt (delivered, pending for a retry, failed), the HTTP status, the attempt
 * number. A failed delivery (no retry left) is a warning. The URL is not logged: it may carry a
 * token in its query.
 */
export function logDeliveryOutcome(store: Store, logger: Logger, outcome: AttemptOutcome): void {
  const { delivery, httpStatus, latencyMs, error } = outcome;
  if (!logger.isLevelEnabled(delivery.status === 'failed' ? 'warn' : 'info')) return; // not even the event lookup
  void store.webhooks.getEvent(delivery.eventId).then(
    (event) => {
      const fields = {
        event: 'webhook.attempt',
        deliveryId: delivery.id,
        eventId: delivery.eventId,
        eventType: event?.type,
        webhookId: delivery.webhookId ?? undefined,
        status: delivery.status,
        httpStatus,
        attempt: delivery.attempts.length,
        ms: latencyMs,
        error,
      };
      const message = `webhook delivery ${delivery.id} attempt ${delivery.attempts.length}: ${delivery.status}${httpStatus === null ? '' : ` (HTTP ${httpStatus})`}`;
      if (delivery.status === 'failed') logger.warn(fields, message);
      else logger.info(fields, message);
    },
    () => undefined,
  );
}
