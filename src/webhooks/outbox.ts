import type { ConfigSource } from '../config/source.js';
import { TEST_EVENT_KIND } from '../domain/event-kinds.js';
import { sortableId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { DeliveryQueue } from '../services/webhooks/delivery-log.js';
import { openWebhookSecret } from '../services/webhooks/webhook-secret.js';
import type { DeliveryAttempt, DeliveryRecord, EventRecord, TaskRecord, WebhookRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { newDelivery } from './new-delivery.js';
import { listenForSettlements, type SettlementEvents } from './settlement-events.js';

export type { DeliveryRecord } from '../store/records.js';

/**
 * What is sent for a delivery: the event id, the body, and the signing secret of its webhook (none for custom
 * endpoints).
 */
export type DeliveryMessage = { id: string; body: string; secret?: string };
/** What one attempt came to; `skip`: none was made (the event or the webhook is gone, or the webhook disabled). */
export type AttemptResult = { status: number | null; latencyMs: number; error?: string } | { skip: string };

/** The dispatcher's side of the outbox: what is due, what to send, and each attempt journaled. */
export interface DeliverySource {
  /**
   * Up to `limit` deliveries due at `now`, earliest first, leaving out those in flight, and
   * when the next one left falls due (null when none is pending). Reads only the first
   * `limit + 1` in due order, so a large backlog costs no more than a small one.
   */
  due(
    now: number,
    limit: number,
    inFlight: ReadonlySet<string>,
  ): Promise<{ due: DeliveryRecord[]; nextAt: number | null }>;
  message(d: DeliveryRecord): Promise<DeliveryMessage | { skip: string }>;
  /**
   * Journals an attempt: 2xx → delivered; otherwise retried on the schedule until it runs out.
   * A dashboard webhook with no success for `disableAfterMs` is disabled, and the operator told.
   */
  recordAttempt(d: DeliveryRecord, result: AttemptResult): Promise<DeliveryRecord>;
}

/**
 * The durable outbox: settlements' events recorded, test and repeated deliveries queued, and the dispatcher's source.
 */
export interface Outbox extends SettlementEvents, DeliveryQueue, DeliverySource {}

/**
 * The durable outbox: each settled task's event is recorded with its deliveries in one journal
 * write (settlement-events.ts); attempts are journaled too, so deliveries survive restarts and
 * are at least once, with the same event id every time.
 */
export function createOutbox(deps: {
  store: Store;
  /** Opens the webhooks' sealed signing secrets. */
  secretsKey: Uint8Array;
  clock: Clock;
  config: Pick<ConfigSource, 'current'>;
  events: EventBus;
  log: (message: string) => void;
  /** The task as its event shows it (a task being deleted: scrubbed); none: as it settled. */
  eventTask?: (task: TaskRecord) => TaskRecord;
}): Outbox {
  const { store, clock, events } = deps;
  const settings = () => deps.config.current().webhooks;
  const due = () => events.emit('delivery:due', {});
  // Opened once per webhook and sealed value, not once per delivery (a rotated secret is a new sealed value).
  const secrets = new Map<string, { sealed: string; secret: string }>();
  const secretOf = (webhook: WebhookRecord): string => {
    const known = secrets.get(webhook.id);
    if (known?.sealed === webhook.sealedSecret) return known.secret;
    const secret = openWebhookSecret(deps.secretsKey, webhook);
    secrets.set(webhook.id, { sealed: webhook.sealedSecret, secret });
    return secret;
  };

  async function updateHealth(webhookId: string, ok: boolean, now: number): Promise<void> {
    const disabled = await store.webhooks.recordHealth(webhookId, {
      ok,
      at: isoTime(now),
      disableAfterMs: settings().disableAfterMs,
    });
    if (disabled) deps.log(`webhooks: disabled webhook ${disabled.id} (${disabled.url}): ${disabled.disabledReason}`);
  }

  return {
    ...listenForSettlements({ store, clock, events, log: deps.log, due, eventTask: deps.eventTask }),

    async queueTest(webhook) {
      const at = isoTime(clock.now());
      const id = sortableId('evt', clock.now());
      const event: EventRecord = {
        id,
        type: TEST_EVENT_KIND,
        accountId: webhook.accountId,
        taskId: null,
        createdAt: at,
        payload: { id, type: TEST_EVENT_KIND, createdAt: at, data: { webhookId: webhook.id } },
      };
      const record = newDelivery(event, webhook.url, webhook.id, at);
      await store.webhooks.recordEvent(event, [record]);
      due();
      return record;
    },

    async queueAgain(deliveryId) {
      const again = await store.webhooks.redeliver(deliveryId, isoTime(clock.now()));
      due();
      return again;
    },

    async due(now, limit, inFlight) {
      const next = await store.webhooks.nextDeliveries(limit + 1, inFlight);
      const due: DeliveryRecord[] = [];
      for (const d of next) {
        const at = Date.parse(d.nextAttemptAt!);
        if (at > now || due.length >= limit) return { due, nextAt: at };
        due.push(d);
      }
      return { due, nextAt: null };
    },

    async message(d) {
      const event = await store.webhooks.getEvent(d.eventId);
      if (!event) return { skip: 'the event is gone' };
      if (d.webhookId === null) return { id: event.id, body: JSON.stringify(event.payload) };
      const webhook = await store.webhooks.get(d.webhookId);
      if (!webhook) return { skip: 'the webhook was deleted' };
      if (!webhook.enabled) return { skip: 'the webhook is disabled' };
      return { id: event.id, body: JSON.stringify(event.payload), secret: secretOf(webhook) };
    },

    async recordAttempt(d, result) {
      const now = clock.now();
      const at = isoTime(now);
      if ('skip' in result)
        return store.webhooks.recordAttempt(
          d.id,
          { at, status: null, latencyMs: 0, error: result.skip },
          'failed',
          null,
        );
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      const attempt: DeliveryAttempt = { at, status: result.status, latencyMs: result.latencyMs };
      if (!ok) attempt.error = result.error ?? `HTTP ${result.status}`;
      const schedule = settings().retryScheduleMs;
      const made = d.attempts.length + 1;
      const status = ok ? 'delivered' : made >= schedule.length ? 'failed' : 'pending';
      const next = status === 'pending' ? isoTime(now + schedule[made]) : null;
      // Health first: once a delivery reads as settled, its webhook's health already counts the attempt.
      if (d.webhookId) await updateHealth(d.webhookId, ok, now);
      return store.webhooks.recordAttempt(d.id, attempt, status, next);
    },
  };
}
