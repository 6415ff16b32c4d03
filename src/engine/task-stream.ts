import type { EventBus, TaskPreview } from '../services/event-bus.js';
import type { TaskRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { type LiveProgress, progressKey } from './live-progress.js';

/**
 * How often the queue positions of followed tasks are looked at again. A position moves as other
 * tasks start, which is no event of its own (nothing is told per queued task): a followed task's
 * stream hears of it at this pace instead, and only when it changed.
 */
export const POSITION_CHECK_MS = 1000;

/**
 * How far a task has got: its finished items, plus one once it settled. Every change a live
 * status stream shows raises it, so it is the stream's event id: a client resuming with
 * `Last-Event-ID` has seen everything up to it.
 */
export const taskVersion = (task: TaskRecord): number =>
  task.items.reduce((n, item) => n + (item.status === 'pending' ? 0 : 1), 0) + (task.status === 'pending' ? 0 : 1);

/** One open stream of one task. */
export interface TaskWatcher {
  /**
   * A state of the task newer than any this process handed out for it before (a watcher still drops one older than what
   * it sent).
   */
  update(task: TaskRecord): void;
  /**
   * Its live progress (running items' fractions, queue position) may have changed since the watcher was last told: it
   * reads it again.
   */
  progress?(): void;
  /**
   * A running item's newest live preview, from this process's runner or the one running it (never stored: a stream that
   * misses it waits for the next).
   */
  preview?(preview: TaskPreview): void;
  /** The process is closing: the stream ends (its client reconnects, to this process once it is back or to another). */
  end(): void;
}

interface Watched {
  watchers: Set<TaskWatcher>;
  /** The highest version handed out; -1 before the first. */
  version: number;
  reading: boolean;
  /** Another read was asked for while one was under way. */
  again: boolean;
  /** The live progress its watchers were last told of (progressKey). */
  progress: string;
}

/** Live status streams: the fan-out of task changes to GET /tasks/{id}/events. */
export interface TaskStreams {
  /** Follows a task; returns the function that stops following it (call it when the stream ends). */
  watch(taskId: string, watcher: TaskWatcher): () => void;
  /**
   * Reads every followed task again (notifications from other processes may have been missed: the database connection
   * was lost).
   */
  refresh(): void;
  /** Open streams, and the tasks they follow (for tests and the operator's figures). */
  stats(): { streams: number; tasks: number };
  /** Ends every stream (the server is closing: an open stream would keep its connection, and the close, waiting). */
  close(): void;
}

/**
 * The fan-out of live task status to streams: one subscription per process to the event bus,
 * whatever the number of streams, and a map from task id to its watchers. Changes made here
 * arrive with the task; changes made by another process sharing the database arrive as a task
 * id (NOTIFY, relayed by the fleet bridge as `task:*-elsewhere`) and the task is read once per
 * notification, for all its watchers, and only when it could show something new. Live progress
 * (running items' fractions, the queue position) is no store state: watchers are told it changed
 * (`progress()`) on `task:progress` here or `task:progress-elsewhere`, and, for the queue position,
 * which moves as other tasks start, by one check of the followed tasks every POSITION_CHECK_MS;
 * each time only if it differs from what they were last told.
 */
export function createTaskStreams(deps: {
  store: Pick<Store, 'tasks'>;
  events: EventBus;
  log: (message: string) => void;
  /** Where a pending task stands in memory (engine/live-progress.ts); none: streams show recorded items only. */
  live?: (taskId: string) => LiveProgress | undefined;
  positionCheckMs?: number;
}): TaskStreams {
  const watched = new Map<string, Watched>();
  let closed = false;

  /** Tells the watchers of `taskId` its live progress changed, when it did since they were last told. */
  const progressed = (taskId: string): void => {
    const entry = watched.get(taskId);
    if (!entry || !deps.live) return;
    const key = progressKey(deps.live(taskId));
    if (key === entry.progress) return;
    entry.progress = key;
    for (const watcher of [...entry.watchers]) watcher.progress?.();
  };
  /** Hands a running item's preview to the watchers of its task. */
  const previewed = (preview: TaskPreview): void => {
    for (const watcher of [...(watched.get(preview.taskId)?.watchers ?? [])]) watcher.preview?.(preview);
  };
  /** One timer for every followed task, running only while some task is followed. */
  let positionTimer: NodeJS.Timeout | undefined;
  const checkPositions = () => {
    if (positionTimer || !deps.live) return;
    positionTimer = setInterval(() => {
      if (watched.size === 0) {
        clearInterval(positionTimer);
        positionTimer = undefined;
        return;
      }
      for (const taskId of watched.keys()) progressed(taskId);
    }, deps.positionCheckMs ?? POSITION_CHECK_MS);
    positionTimer.unref();
  };

  const deliver = (task: TaskRecord): void => {
    const entry = watched.get(task.id);
    if (!entry) return;
    const version = taskVersion(task);
    if (version <= entry.version) return;
    entry.version = version;
    for (const watcher of [...entry.watchers]) watcher.update(task);
  };

  /** Reads a watched task again (one read at a time per task; asks made meanwhile become one more read). */
  const reread = (taskId: string): void => {
    const entry = watched.get(taskId);
    if (!entry) return;
    if (entry.reading) {
      entry.again = true;
      return;
    }
    entry.reading = true;
    void (async () => {
      try {
        do {
          entry.again = false;
          const task = await deps.store.tasks.get(taskId);
          if (task) deliver(task);
        } while (entry.again && watched.get(taskId) === entry);
      } catch (err) {
        deps.log(
          `task streams: task ${taskId} not read again (${(err as Error).message}); its streams wait for the next change`,
        );
      } finally {
        entry.reading = false;
      }
    })();
  };

  const unsubscribe = [
    deps.events.on('task:item', ({ task }) => deliver(task)),
    deps.events.on('task:settled', ({ task }) => deliver(task)),
    deps.events.on('task:item-elsewhere', ({ taskId, finished }) => {
      const entry = watched.get(taskId);
      // Its own notification comes back to the process that recorded the item: already handed out.
      if (entry && finished > entry.version) reread(taskId);
    }),
    deps.events.on('task:settled-elsewhere', ({ taskId }) => {
      const entry = watched.get(taskId);
      if (entry) reread(taskId);
    }),
    deps.events.on('task:progress', ({ taskId }) => progressed(taskId)),
    deps.events.on('task:progress-elsewhere', ({ taskId }) => progressed(taskId)),
    deps.events.on('task:preview', previewed),
    deps.events.on('task:preview-elsewhere', previewed),
  ];

  return {
    /** Follows a task; returns the function that stops following it (call it when the stream ends). */
    watch(taskId: string, watcher: TaskWatcher): () => void {
      if (closed) {
        queueMicrotask(() => watcher.end());
        return () => undefined;
      }
      let entry = watched.get(taskId);
      if (!entry) {
        entry = {
          watchers: new Set(),
          version: -1,
          reading: false,
          again: false,
          progress: progressKey(deps.live?.(taskId)),
        };
        watched.set(taskId, entry);
        checkPositions();
      }
      entry.watchers.add(watcher);
      const mine = entry;
      return () => {
        mine.watchers.delete(watcher);
        if (mine.watchers.size === 0 && watched.get(taskId) === mine) watched.delete(taskId);
      };
    },
    /**
     * Reads every followed task again (notifications from other processes may have been missed: the database connection
     * was lost).
     */
    refresh(): void {
      for (const taskId of watched.keys()) reread(taskId);
    },
    /** Open streams, and the tasks they follow (for tests and the operator's figures). */
    stats(): { streams: number; tasks: number } {
      let streams = 0;
      for (const entry of watched.values()) streams += entry.watchers.size;
      return { streams, tasks: watched.size };
    },
    /** Ends every stream (the server is closing: an open stream would keep its connection, and the close, waiting). */
    close(): void {
      closed = true;
      for (const off of unsubscribe) off();
      clearInterval(positionTimer);
      positionTimer = undefined;
      const all = [...watched.values()].flatMap((entry) => [...entry.watchers]);
      watched.clear();
      for (const watcher of all) watcher.end();
    },
  };
}
