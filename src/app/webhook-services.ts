import type { ConfigSource } from '../config/source.js';
import type { TaskRecord } from '../engine/task-registry.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import { createWebhookService, type WebhookService } from '../services/webhooks/webhook-service.js';
import type { Store } from '../store/store-contract.js';
import { type BillingAlerts, createBillingAlerts } from '../webhooks/billing-alerts.js';
import { createOutbox, type Outbox } from '../webhooks/outbox.js';
import { newWebhookSecret } from '../webhooks/sign.js';

/** Webhooks: the durable outbox of events and deliveries, their management, and budget alerts. */
export interface WebhookServices {
  outbox: Outbox;
  webhooks: WebhookService;
  billingAlerts: BillingAlerts;
  /** Records the events refused while the disk was full (the store takes writes again), in the background. */
  recoverRefusedEvents(): void;
}

/** Each listener subscribes itself to `events`: the outbox first, then the budget alerts. */
export function createWebhookServices(deps: {
  store: Store;
  clock: Clock;
  config: ConfigSource;
  events: EventBus;
  /** Opens the webhooks' sealed signing secrets. */
  secretsKey: Uint8Array;
  log: (message: string) => void;
  /** Why a webhook URL is refused (deliveries could never reach it), or null. */
  checkUrl: (url: string) => string | null;
  /** The task as its event shows it (a task being deleted: scrubbed). */
  eventTask: (task: TaskRecord) => TaskRecord;
}): WebhookServices {
  const { store, clock, config, events, secretsKey, log } = deps;
  // The outbox records every settlement's event (durably, after the settlement itself).
  const outbox = createOutbox({ store, secretsKey, clock, config, events, log, eventTask: deps.eventTask });
  // Managing webhooks (API, console, admin); its test and redeliver queue through the outbox.
  const webhooks = createWebhookService({
    store,
    clock,
    secretsKey,
    newSecret: newWebhookSecret,
    delivery: outbox,
    checkUrl: deps.checkUrl,
  });
  // Budget alerts: each charging settlement is compared with the thresholds (billing.threshold_reached).
  const billingAlerts = createBillingAlerts({ store, clock, config, events, log });
  // An event refused for lack of space is recorded once space returns, as a start would.
  const recoverRefusedEvents = () => {
    outbox.recoverMissing().then(
      (recovered) => recovered > 0 && log(`webhooks: recorded ${recovered} event(s) refused while the disk was full`),
      (err: Error) =>
        log(
          `webhooks: events refused while the disk was full not recorded yet (${err.message}); the next start records them`,
        ),
    );
  };
  return { outbox, webhooks, billingAlerts, recoverRefusedEvents };
}
