import { sortableId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { TaskRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { taskEventEnvelope, type WebhookEnvelope } from './task-views.js';

/** One settled task's event, with what a subscription filters on. */
export interface AccountEvent {
  envelope: WebhookEnvelope;
  taskType: string;
  status: 'completed' | 'failed';
}

/** One open stream of one account's events (GET /webhook/events). */
export interface AccountEventWatcher {
  event(event: AccountEvent): void;
  /** The process is closing: the stream ends (its client connects again). */
  end(): void;
}

/** Settled tasks remembered, so one settled here and then announced back by the fleet is handed out once. */
const SEEN_KEPT = 1000;

/** Each account's settled-task events, live: the fan-out to GET /webhook/events. */
export interface AccountEvents {
  /** Follows an account's events; returns the function that stops following (call it when the stream ends). */
  follow(accountId: string, watcher: AccountEventWatcher): () => void;
  /** Ends every stream (the process is closing: an open stream would hold its connection, and the close, open). */
  close(): void;
}

/**
 * The fan-out of each account's settled-task events to its live streams: one subscription per
 * process to the event bus, a map from account id to its streams. Settlements made here arrive
 * with the task; on a shared database those of other processes arrive as a task id
 * (`task:settled-elsewhere`) and the task is read once, only while some stream is open. Nothing
 * is stored: a stream gets the events from when it opens, each once, and none of the time it was
 * closed. A task created with `webhook.dashboard: false` is left out, as dashboard webhooks leave
 * it out.
 */
export function createAccountEvents(deps: {
  store: Pick<Store, 'tasks'>;
  events: EventBus;
  clock: Clock;
  log: (message: string) => void;
}): AccountEvents {
  const watched = new Map<string, Set<AccountEventWatcher>>();
  const seen = new Set<string>();
  let closed = false;

  /** Whether `taskId` was handed out already; remembers it when not. */
  const handedOut = (taskId: string): boolean => {
    if (seen.has(taskId)) return true;
    seen.add(taskId);
    if (seen.size > SEEN_KEPT) seen.delete(seen.values().next().value!);
    return false;
  };

  const deliver = (task: TaskRecord): void => {
    if (task.status === 'pending' || handedOut(task.id)) return;
    const watchers = watched.get(task.accountId);
    if (!watchers) return;
    if ((task.request as { webhook?: { dashboard?: boolean } } | null)?.webhook?.dashboard === false) return;
    const now = deps.clock.now();
    const event: AccountEvent = {
      envelope: taskEventEnvelope(sortableId('evt', now), isoTime(now), task),
      taskType: task.type,
      status: task.status,
    };
    for (const watcher of [...watchers]) watcher.event(event);
  };

  const unsubscribe = [
    deps.events.on('task:settled', ({ task }) => deliver(task)),
    deps.events.on('task:settled-elsewhere', ({ taskId }) => {
      // Its own announcement comes back to the process that settled it: already handed out.
      if (watched.size === 0 || seen.has(taskId)) return;
      deps.store.tasks.get(taskId).then(
        (task) => task && deliver(task),
        (err: Error) => deps.log(`account events: task ${taskId} not read (${err.message}); its event is not streamed`),
      );
    }),
  ];

  return {
    /** Follows an account's events; returns the function that stops following (call it when the stream ends). */
    follow(accountId: string, watcher: AccountEventWatcher): () => void {
      if (closed) {
        queueMicrotask(() => watcher.end());
        return () => undefined;
      }
      const watchers = watched.get(accountId) ?? new Set();
      watched.set(accountId, watchers);
      watchers.add(watcher);
      return () => {
        watchers.delete(watcher);
        if (watchers.size === 0 && watched.get(accountId) === watchers) watched.delete(accountId);
      };
    },
    /** Ends every stream (the process is closing: an open stream would hold its connection, and the close, open). */
    close(): void {
      closed = true;
      for (const off of unsubscribe) off();
      const all = [...watched.values()].flatMap((watchers) => [...watchers]);
      watched.clear();
      for (const watcher of all) watcher.end();
    },
  };
}
