import { eventMatches } from '../domain/event-kinds.js';
import { sortableId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import { taskEventEnvelope } from '../engine/task-views.js';
import { type EventBus, settledEventKind } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { EventRecord, TaskRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { createFoundEndpoints } from './found-endpoints.js';
import { newDelivery } from './new-delivery.js';

/** Tasks recovered at once at start-up: enough to fill group commits, few enough to bound memory. */
const RECOVERY_CHUNK = 1000;
/**
 * Settlements whose endpoints are kept between the audience check and their settled event: far more than settle at
 * once.
 */
const FOUND_KEPT = 1000;

type Endpoint = { url: string; webhookId: string | null };

/** The outbox's side of settlements: each settled task's event recorded with its deliveries. */
export interface SettlementEvents {
  /** Records the event of a settled task (nothing when pending, or already recorded). */
  recordTaskEvent(task: TaskRecord): Promise<void>;
  /** Resolves once an event of the task being written in this process is written (at once when none is). */
  recorded(taskId: string): Promise<void>;
  /** Records events for tasks that settled just before a crash, before their event was written; how many. */
  recoverMissing(): Promise<number>;
  /** Stops recording settlements' events. */
  close(): void;
}

/**
 * Each settled task becomes one event whose deliveries (one per matching dashboard webhook and
 * per custom endpoint of the task) are recorded with it in a single journal write. It
 * subscribes itself to `task:settled` (durably after the settlement; `close` unsubscribes): an
 * event a failed write left out is recorded by `recoverMissing` at the next start. `due` tells
 * the dispatcher that deliveries were queued.
 */
export function listenForSettlements(deps: {
  store: Store;
  clock: Clock;
  events: EventBus;
  log: (message: string) => void;
  due: () => void;
  /** The task as its event shows it (a task being deleted: scrubbed); none: as it settled. */
  eventTask?: (task: TaskRecord) => TaskRecord;
}): SettlementEvents {
  const { store, clock, events } = deps;

  /**
   * Where the event of `task`, settled as `status`, goes: each matching dashboard webhook (unless the task opted out)
   * and each custom endpoint of the task.
   */
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

  /**
   * Events being written, by task: a task's data removed meanwhile waits for its event (`recorded`), so it is scrubbed
   * too.
   */
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
    // The task's data removed before this write (it read the task as it settled): the event is rebuilt from what is
    // left.
    const now = await store.tasks.get(task.id);
    if (now?.dataRemovedAt !== undefined) await store.webhooks.replaceEventPayload(id, taskEventEnvelope(id, at, now));
    deps.due();
  }

  // Asked before each settlement is written: one nobody is to hear of carries its "no event"
  // mark in its own write. What it found is kept for the settled event, which records the
  // deliveries to those endpoints without reading the webhooks again: a webhook added (or
  // changed) between this answer and the event does not get it, as one added just after would
  // not; one deleted or disabled meanwhile is skipped at delivery (the outbox's `message`).
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
    recordTaskEvent: (task) => recordTaskEvent(task),
    recorded: (taskId) => (writing.get(taskId) ?? Promise.resolve()).catch(() => undefined),
    close() {
      leaveAudience();
      leaveSettled();
    },
    async recoverMissing() {
      const missing = await store.webhooks.settledWithoutEvent();
      // A chunk at a time, all in flight together: the journal's group commit then writes
      // each chunk in a few fsyncs instead of one per task.
      for (let i = 0; i < missing.length; i += RECOVERY_CHUNK)
        await Promise.all(missing.slice(i, i + RECOVERY_CHUNK).map((task) => recordTaskEvent(task)));
      return missing.length;
    },
  };
}
