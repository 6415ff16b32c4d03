import type { ConfigSource } from '../config/source.js';
import { AppError } from '../domain/errors.js';
import { eventMatches, TEST_EVENT_KIND } from '../domain/events.js';
import { randomId, sortableId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import { taskEventEnvelope } from '../engine/task-views.js';
import { type EventBus, settledEventKind } from '../services/events.js';
import { type Clock, type Owner, ownedBy } from '../services/ports.js';
import type { WebhookService } from '../services/webhooks.js';
import type { DeliveryAttempt, DeliveryRecord, EventRecord, TaskRecord, WebhookRecord } from '../store/records.js';
import type { Store } from '../store/types.js';
import { createFoundEndpoints } from './found-endpoints.js';

export type { DeliveryRecord } from '../store/records.js';

/** Tasks recovered at once at start-up: enough to fill group commits, few enough to bound memory. */
const RECOVERY_CHUNK = 1000;
/** Settlements whose endpoints are kept between the audience check and their settled event: far more than settle at once. */
const FOUND_KEPT = 1000;

type Endpoint = { url: string; webhookId: string | null };

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

/** A delivery as the API shows it. */
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

/** A new delivery of `event` to `url` (a dashboard webhook's, or a task's custom endpoint: webhookId null), due at once. */
export const newDelivery = (
  event: Pick<EventRecord, 'id' | 'accountId'>,
  url: string,
  webhookId: string | null,
  at: string,
): DeliveryRecord => ({
  id: randomId('dlv'),
  eventId: event.id,
  accountId: event.accountId,
  webhookId,
  url,
  status: 'pending',
  attempts: [],
  nextAttemptAt: at,
  createdAt: at,
  updatedAt: at,
});

/**
 * The durable outbox: each settled task becomes one event whose deliveries (one per
 * matching dashboard webhook and per custom endpoint of the task) are recorded with it in a
 * single journal write; attempts are journaled too, so deliveries survive restarts and are
 * at least once, with the same event id every time. It subscribes itself to `task:settled`
 * (durably after the settlement; `close` unsubscribes): an event a failed write left out is
 * recorded by `recoverMissing` at the next start.
 */
export function createOutbox(deps: {
  store: Store;
  webhooks: WebhookService;
  clock: Clock;
  config: Pick<ConfigSource, 'current'>;
  events: EventBus;
  log: (message: string) => void;
  /** The task as its event shows it (a task being deleted: scrubbed); none: as it settled. */
  eventTask?: (task: TaskRecord) => TaskRecord;
}) {
  const { store, clock, events } = deps;
  const settings = () => deps.config.current().webhooks;
  const due = () => events.emit('delivery:due', {});
  // Opened once per webhook and sealed value, not once per delivery (a rotated secret is a new sealed value).
  const secrets = new Map<string, { sealed: string; secret: string }>();
  const secretOf = (webhook: WebhookRecord): string => {
    const known = secrets.get(webhook.id);
    if (known?.sealed === webhook.sealedSecret) return known.secret;
    const secret = deps.webhooks.secretOf(webhook);
    secrets.set(webhook.id, { sealed: webhook.sealedSecret, secret });
    return secret;
  };

  /** Where the event of `task`, settled as `status`, goes: each matching dashboard webhook (unless the task opted out) and each custom endpoint of the task. */
  async function endpointsOf(task: TaskRecord, status: 'completed' | 'failed'): Promise<Endpoint[]> {
    const options = (task.request as { webhook?: { dashboard?: boolean; custom?: { url: string }[] } } | null)?.webhook;
    const endpoints: Endpoint[] = [];
    if (options?.dashboard !== false) {
      for (const webhook of await store.webhooks.listByAccount(task.accountId)) {
        if (!webhook.enabled || !eventMatches(webhook.events, task.type, status)) continue;
        if (webhook.apiKeyIds.length > 0 && (!task.apiKeyId || !webhook.apiKeyIds.includes(task.apiKeyId))) continue;
        endpoints.push({ url: webhook.url, webhookId: webhook.id });
      }
    }
    for (const custom of options?.custom ?? []) endpoints.push({ url: custom.url, webhookId: null });
    return endpoints;
  }

  /** Events being written, by task: a task's data removed meanwhile waits for its event (`recorded`), so it is scrubbed too. */
  const writing = new Map<string, Promise<void>>();

  /** Records the event of a settled task; `found` is what the audience check before its write found, when kept. */
  function recordTaskEvent(task: TaskRecord, found?: Promise<Endpoint[]>): Promise<void> {
    if (task.status === 'pending' || task.eventId) return Promise.resolve();
    const written = writeTaskEvent(task, task.status, found);
    writing.set(task.id, written);
    const forget = () => {
      if (writing.get(task.id) === written) writing.delete(task.id);
    };
    written.then(forget, forget);
    return written;
  }

  async function writeTaskEvent(
    task: TaskRecord,
    status: 'completed' | 'failed',
    found?: Promise<Endpoint[]>,
  ): Promise<void> {
    const endpoints = (await found?.catch(() => undefined)) ?? (await endpointsOf(task, status));
    // Nobody to tell: keep only the mark, not a second copy of the result.
    if (endpoints.length === 0) return store.webhooks.markNoEvent(task.id);
    const at = isoTime(clock.now());
    const id = sortableId('evt', clock.now());
    const shown = deps.eventTask?.(task) ?? task;
    const event: EventRecord = {
      id,
      type: settledEventKind(task),
      accountId: task.accountId,
      taskId: task.id,
      createdAt: at,
      payload: taskEventEnvelope(id, at, shown),
    };
    await store.webhooks.recordEvent(
      event,
      endpoints.map((endpoint) => newDelivery(event, endpoint.url, endpoint.webhookId, at)),
    );
    // The task's data removed before this write (it read the task as it settled): the event is rebuilt from what is left.
    const now = await store.tasks.get(task.id);
    if (now?.dataRemovedAt !== undefined) await store.webhooks.replaceEventPayload(id, taskEventEnvelope(id, at, now));
    due();
  }

  // Asked before each settlement is written: one nobody is to hear of carries its "no event"
  // mark in its own write. What it found is kept for the settled event, which records the
  // deliveries to those endpoints without reading the webhooks again: a webhook added (or
  // changed) between this answer and the event does not get it, as one added just after would
  // not; one deleted or disabled meanwhile is skipped at delivery (`message`).
  const found = createFoundEndpoints<Endpoint[]>(FOUND_KEPT);
  const leaveAudience = events.setAudience(
    async (task, status) => (await found.find(task.id, status, () => endpointsOf(task, status))).length > 0,
  );
  const leaveSettled = events.on('task:settled', ({ task }) => {
    recordTaskEvent(task, task.status === 'pending' ? undefined : found.take(task.id, task.status)).catch(
      (err: Error) =>
        deps.log(`webhooks: event for task ${task.id} not recorded yet (${err.message}); the next start records it`),
    );
  });

  return {
    recordTaskEvent,
    /** Resolves once an event of the task being written in this process is written (at once when none is). */
    recorded: (taskId: string): Promise<void> => (writing.get(taskId) ?? Promise.resolve()).catch(() => undefined),
    /** Stops recording settlements' events. */
    close() {
      leaveAudience();
      leaveSettled();
    },
    /** Records events for tasks that settled just before a crash, before their event was written. */
    async recoverMissing(): Promise<number> {
      const missing = await store.webhooks.settledWithoutEvent();
      // A chunk at a time, all in flight together: the journal's group commit then writes
      // each chunk in a few fsyncs instead of one per task.
      for (let i = 0; i < missing.length; i += RECOVERY_CHUNK)
        await Promise.all(missing.slice(i, i + RECOVERY_CHUNK).map((task) => recordTaskEvent(task)));
      return missing.length;
    },

    /** A `webhook.test` event delivered to one webhook, whatever it subscribes to. */
    async sendTest(owner: Owner, webhookId: string): Promise<DeliveryView> {
      const webhook = await deps.webhooks.owned(owner, webhookId);
      const at = isoTime(clock.now());
      const id = sortableId('evt', clock.now());
      const event: EventRecord = {
        id,
        type: TEST_EVENT_KIND,
        accountId: webhook.accountId,
        taskId: null,
        createdAt: at,
        payload: { id, type: TEST_EVENT_KIND, createdAt: at, data: { webhookId } },
      };
      const record = newDelivery(event, webhook.url, webhook.id, at);
      await store.webhooks.recordEvent(event, [record]);
      due();
      return this.view((await store.webhooks.getDelivery(record.id))!);
    },

    /**
     * Up to `limit` deliveries due at `now`, earliest first, leaving out those in flight, and
     * when the next one left falls due (null when none is pending). Reads only the first
     * `limit + 1` in due order, so a large backlog costs no more than a small one.
     */
    async due(
      now: number,
      limit: number,
      inFlight: ReadonlySet<string>,
    ): Promise<{ due: DeliveryRecord[]; nextAt: number | null }> {
      const next = await store.webhooks.nextDeliveries(limit + 1, inFlight);
      const due: DeliveryRecord[] = [];
      for (const d of next) {
        const at = Date.parse(d.nextAttemptAt!);
        if (at > now || due.length >= limit) return { due, nextAt: at };
        due.push(d);
      }
      return { due, nextAt: null };
    },

    /** What to send for a delivery: the event id, the body, and the signing secret of its webhook (none for custom endpoints). */
    async message(d: DeliveryRecord): Promise<{ id: string; body: string; secret?: string } | { skip: string }> {
      const event = await store.webhooks.getEvent(d.eventId);
      if (!event) return { skip: 'the event is gone' };
      if (d.webhookId === null) return { id: event.id, body: JSON.stringify(event.payload) };
      const webhook = await store.webhooks.get(d.webhookId);
      if (!webhook) return { skip: 'the webhook was deleted' };
      if (!webhook.enabled) return { skip: 'the webhook is disabled' };
      return { id: event.id, body: JSON.stringify(event.payload), secret: secretOf(webhook) };
    },

    /**
     * Journals an attempt: 2xx → delivered; otherwise retried on the schedule until it runs out.
     * A dashboard webhook with no success for `disableAfterMs` is disabled, and the operator told.
     */
    async recordAttempt(
      d: DeliveryRecord,
      result: { status: number | null; latencyMs: number; error?: string } | { skip: string },
    ): Promise<DeliveryRecord> {
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

    async redeliver(owner: Owner, deliveryId: string): Promise<DeliveryView> {
      const d = await store.webhooks.getDelivery(deliveryId);
      if (!d || !ownedBy(owner, d.accountId)) throw new AppError('WEBHOOK_NOT_FOUND', `no delivery ${deliveryId}`);
      const again = (await store.webhooks.redeliver(deliveryId, isoTime(clock.now())))!;
      due();
      return this.view(again);
    },

    async deliveries(owner: Owner, webhookId: string, limit = 50): Promise<DeliveryView[]> {
      const webhook = await store.webhooks.get(webhookId);
      if (!webhook || !ownedBy(owner, webhook.accountId))
        throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId}`);
      return Promise.all((await store.webhooks.deliveriesOf(webhookId, limit)).map((d) => this.view(d)));
    },

    /**
     * The event a task's settlement recorded and each of its deliveries with every attempt (the
     * console's task inspector); null while none is recorded (pending, or no endpoint wanted it).
     * Another account's task is TASK_NOT_FOUND.
     */
    async taskDeliveries(
      owner: Owner,
      taskId: string,
    ): Promise<{ event: EventRecord; deliveries: DeliveryView[] } | null> {
      const task = await store.tasks.get(taskId);
      if (!task || !ownedBy(owner, task.accountId)) throw new AppError('TASK_NOT_FOUND');
      const event = task.eventId ? await store.webhooks.getEvent(task.eventId) : undefined;
      if (!event) return null;
      const deliveries = await store.webhooks.deliveriesOfEvent(event.id);
      return { event, deliveries: deliveries.map((d) => viewOf(d, event.type)) };
    },

    async view(d: DeliveryRecord): Promise<DeliveryView> {
      const event = await store.webhooks.getEvent(d.eventId);
      return viewOf(d, event?.type ?? 'unknown');
    },
  };

  async function updateHealth(webhookId: string, ok: boolean, now: number): Promise<void> {
    const disabled = await store.webhooks.recordHealth(webhookId, {
      ok,
      at: isoTime(now),
      disableAfterMs: settings().disableAfterMs,
    });
    if (disabled) deps.log(`webhooks: disabled webhook ${disabled.id} (${disabled.url}): ${disabled.disabledReason}`);
  }
}

export type Outbox = ReturnType<typeof createOutbox>;
