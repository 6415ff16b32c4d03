import type { ConfigSource } from '../../config/source.js';
import type { LivePreview } from '../../domain/media-types.js';
import { isOutOfSpace } from '../../domain/storage-full.js';
import { ProviderError } from '../../domain/task-status.js';
import type { EventBus } from '../../services/event-bus.js';
import type { StoredFile } from '../../store/records.js';
import type { LaneBacklog } from '../load-limits.js';
import type { Prepared, TaskRecord } from '../task-registry.js';
import type { TaskSettler } from '../task-settler.js';
import { describeFailure, discardUnrecorded, itemRecordOf } from './item-record.js';
import { createItemSignals } from './item-signals.js';
import type { JobOwner, Lanes, SlotGrant } from './lanes.js';
import { createLiveTasks, type LiveTask, type RunnerProgress } from './live-tasks.js';
import { abortableSleep, withRetry } from './retry.js';
import { pauseForSpace, whileStorageFull } from './storage-wait.js';

export interface TaskRunnerOptions {
  settlement: TaskSettler;
  lanes: Lanes;
  /** `work.retryBaseMs`, the base of the retry backoff, is read as each retry waits. */
  config: Pick<ConfigSource, 'current'>;
  log: (message: string) => void;
  /**
   * Settlements here and in other processes (cancel, sweep): the items still running for that
   * task are aborted. The runner also announces its tasks' progress here (`task:progress`).
   */
  events?: EventBus;
  /** The least time between two `task:progress` events of one task (default PROGRESS_INTERVAL_MS). */
  progressIntervalMs?: number;
  /** The task's account weight and its key's maxConcurrent, for its place in the lane (none: weight 1, no cap). */
  owner?: (task: TaskRecord) => Promise<{ weight: number; maxConcurrent?: number }>;
  /**
   * Removes files an item stored that no record names (its task settled, or its data removed, before the item was
   * recorded); none: they stay.
   */
  discardFiles?: (files: readonly StoredFile[]) => Promise<void>;
}

/** The runner as the intakes drive it (intake/local.ts queues into it, intake/shared.ts hands it claimed tasks). */
export interface TaskRunner extends LaneBacklog {
  /**
   * Schedules the task's pending items. Throws when the runner cannot take work (then the create fails with
   * ENQUEUE_FAILED).
   */
  enqueue(task: TaskRecord): void;
  resume(pending: TaskRecord[]): void;
  run(task: TaskRecord): Promise<void>;
  close(graceMs: number): Promise<void>;
  /** The lease of a task held here was lost (another process may run it): its items read it again before each runs. */
  leaseLost(taskId: string): void;
  /**
   * Where a task held here stands (its running items' fractions, its queue position, estimates); undefined when this
   * runner does not hold it.
   */
  progressOf(taskId: string): RunnerProgress | undefined;
}

/**
 * Runs tasks: each pending item of a task becomes one job in its type's lane; each finished
 * item is journaled at once, so after a crash only unfinished items run again, and the task
 * is settled (charged) exactly once, by whichever item finishes last.
 */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { settlement: tasks, lanes, log } = options;
  const signals = createItemSignals();
  const stopSignal = signals.stopSignal;
  const { withItemSignal, whenStopping } = signals;
  let accepting = true;
  const inFlight = new Set<Promise<unknown>>();
  const live = createLiveTasks(options);
  const abortTask = (taskId: string) => {
    // Its items still queued leave their lane now: they no longer count ahead of anyone.
    const batch = live.get(taskId)?.batch;
    if (batch) lanes.drop(batch);
    live.forget(taskId);
    signals.abortTask(taskId);
  };
  const unsubscribe = options.events
    ? [
        options.events.on('task:settled', ({ task }) => abortTask(task.id)),
        options.events.on('task:settled-elsewhere', ({ taskId }) => abortTask(taskId)),
      ]
    : [];
  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  };

  /** Who the task's items belong to in their lane: its account and weight, its key and cap, its priority, its model. */
  async function ownerOf(task: TaskRecord, prepared: Prepared): Promise<JobOwner> {
    const { weight, maxConcurrent } = (await options.owner?.(task)) ?? { weight: 1 };
    const owner: JobOwner = { account: task.accountId, key: task.apiKeyId, priority: task.priority ?? 0, weight };
    if (maxConcurrent !== undefined) owner.maxConcurrent = maxConcurrent;
    const affinity = tasks.definition(task.type).affinity?.(task, prepared);
    if (affinity !== undefined) owner.affinity = affinity;
    return owner;
  }

  /** What removing an item's unrecorded files needs: the task as recorded now, and the remover. */
  const recordReader = { getTask: (id: string) => tasks.getTask(id), discardFiles: options.discardFiles, log };

  const itemPending = (task: TaskRecord | undefined, index: number): task is TaskRecord =>
    task?.status === 'pending' && task.items[index]?.status === 'pending';

  async function stillPending(taskId: string, index: number): Promise<boolean> {
    return itemPending(await tasks.getTask(taskId), index);
  }

  /**
   * Runs `step` again while it is refused for lack of space (the store refusing writes, a full
   * disk under a blob), with the retry backoff: the work stays pending meanwhile, never failed
   * with a code of its own. Null once the runner stops or `wanted` turns false.
   */
  const untilStored = <T>(label: string, step: () => Promise<T>, wanted: () => Promise<boolean>) =>
    whileStorageFull(step, {
      signal: stopSignal,
      wanted,
      firstMs: Math.max(10, options.config.current().work.retryBaseMs),
      onRefused: (err) => log(`${label}: kept pending, storage full (${err.message}); tried again until space is back`),
    });

  /** A step for the task as a whole (its expiry, settlement or failure), tried again until stored. */
  const untilTaskStored = (task: TaskRecord, step: () => Promise<unknown>) =>
    untilStored(`task ${task.id}`, step, async () => true);

  /** Runs one item to its outcome; false when there was nothing to run (already settled, or stopping). */
  async function runItem(
    taskId: string,
    index: number,
    prepared: Prepared,
    entry: LiveTask,
    slot: SlotGrant,
  ): Promise<boolean> {
    const files: StoredFile[] = [];
    let recorded = false;
    try {
      return await runAndRecord(taskId, index, prepared, entry, slot, files, () => (recorded = true));
    } finally {
      if (!recorded) await discardUnrecorded(recordReader, taskId, index, files);
    }
  }

  async function runAndRecord(
    taskId: string,
    index: number,
    prepared: Prepared,
    entry: LiveTask,
    slot: SlotGrant,
    files: StoredFile[],
    markRecorded: () => void,
  ): Promise<boolean> {
    if (stopSignal.aborted || entry.settled) return false;
    // The record the task started with: items leave pending only here or by a settlement, which the
    // runner hears (entry.settled), so no read is needed between the slot and the engine. A task
    // whose lease was lost is read again (another process may have run the item).
    const task = entry.stale || !entry.task ? await tasks.getTask(taskId) : entry.task;
    if (!itemPending(task, index)) return false;
    const def = tasks.definition(task.type);
    const label = `task ${taskId} item ${index}`;
    const ran = await untilStored(
      label,
      () =>
        withItemSignal(taskId, (signal) =>
          withRetry(
            (attempt) => {
              const run = live.beginRun(taskId, entry, index);
              const reportProgress = (fraction: number) => live.report(taskId, entry, index, run, fraction);
              const reportPreview = (preview: LivePreview) => live.reportPreview(taskId, entry, index, preview);
              const storedFiles = (made: readonly StoredFile[]) => {
                files.push(...made);
              };
              return def.runItem({
                task,
                request: task.request,
                index,
                attempt,
                prepared,
                signal,
                reportProgress,
                reportPreview,
                preferredProvider: slot.provider,
                engineDone: slot.release,
                storedFiles,
              });
            },
            {
              maxAttempts: def.maxAttempts,
              baseMs: () => options.config.current().work.retryBaseMs,
              sleep: abortableSleep,
              signal,
              shouldContinue: () => stillPending(taskId, index),
            },
          ),
        ),
      () => stillPending(taskId, index),
    );
    // The item has ended: its fraction goes before its record does (the event of the record shows it finished).
    live.itemEnded(taskId, entry, index);
    if (!ran) return false;
    const outcome = ran.value;
    // Stopping mid-item: leave it pending so the next start runs it again (however the abort made it fail: a fetch cut
    // short fails FETCH_FAILED, not retried).
    if (stopSignal.aborted && !outcome.ok) return false;
    const item = itemRecordOf(def, task, index, outcome, files);
    if (!outcome.ok && outcome.error.code === 'UNKNOWN_ERROR' && (await stillPending(taskId, index)))
      log(`task ${taskId} item ${index}: unexpected failure: ${describeFailure(outcome.error)}`);
    // Refused for lack of space: the outcome is kept and recorded once space is back (the work is not
    // done again). The item may have been recorded and only the settlement refused: a retry settles.
    let again = false;
    const record = async () => {
      const retry = again;
      again = true;
      // The task as read before the item ran: items only ever leave pending, so what it shows
      // finished is final (finishItem reads it again only if it is not enough to settle).
      // The start-time record says which other items are finished only for a task of one item (or one read just now):
      // else it is read again here, outside the slot.
      const known = retry || (task === entry.task && task.items.length > 1) ? undefined : task;
      if (
        await tasks.finishItem(taskId, index, item, {
          known,
          prepared: task.prepared === undefined ? prepared.saved : undefined,
        })
      )
        markRecorded();
      if (retry) await tasks.settleIfDone(taskId);
    };
    return (await untilStored(label, record, async () => (await tasks.getTask(taskId))?.status === 'pending')) !== null;
  }

  /**
   * Runs the task's prepare, if its type has one (what it saves is journaled with the first item
   * made with it, by finishItem, not on its own). Null when its items are not to run now: the
   * runner stopped, the prepare failed the task, or it was refused for lack of space (the task is
   * started again once space is back).
   */
  async function prepare(
    task: TaskRecord,
    laneName: string,
    entry: LiveTask,
    spaceTries: number,
  ): Promise<Prepared | null> {
    const def = tasks.definition(task.type);
    if (!def.prepare) return {};
    try {
      return await withItemSignal(task.id, (signal) => def.prepare!(task, task.request, signal));
    } catch (err) {
      // Stopping while preparing (its fetches aborted): the task stays pending and is prepared again on the next start.
      if (stopSignal.aborted) return null;
      // Refused for lack of space (what prepare worked out not saved): the task stays pending and starts again once
      // space is back.
      if (isOutOfSpace(err)) {
        if (spaceTries === 0)
          log(
            `task ${task.id}: kept pending, storage full (${(err as Error).message}); prepared again until space is back`,
          );
        if (!(await pauseForSpace(spaceTries, Math.max(10, options.config.current().work.retryBaseMs), stopSignal)))
          return null;
        const fresh = await tasks.getTask(task.id);
        if (fresh?.status === 'pending') await start(fresh, laneName, { entry, spaceTries: spaceTries + 1 });
        return null;
      }
      const error =
        err instanceof ProviderError ? err : new ProviderError('UNKNOWN_ERROR', 'the task could not be prepared');
      if (!(err instanceof ProviderError)) log(`task ${task.id}: prepare failed: ${(err as Error).stack ?? err}`);
      await untilTaskStored(task, () => tasks.fail(task.id, [{ code: error.code, message: error.message }]));
      return null;
    }
  }

  /**
   * Runs the task's pending items in its lane; resolves once each has run (or was dropped by
   * stopping). Its progress is held meanwhile (`live`), by the first call only (a call again
   * after a full disk carries on with the same entry).
   */
  async function start(
    task: TaskRecord,
    laneName: string,
    again?: { entry: LiveTask; spaceTries: number },
  ): Promise<void> {
    const entry = again?.entry ?? live.hold(task);
    const spaceTries = again?.spaceTries ?? 0;
    if (again) again.entry.task = task;
    try {
      // Its deadline passed before it could start here (a restart, a late claim): it is ended, not begun.
      if (task.deadlineAt !== undefined && Date.parse(task.deadlineAt) <= Date.now() && !again) {
        await untilTaskStored(task, () => tasks.expire(task.id));
        return;
      }
      const pendingItems = task.items.flatMap((item, index) => (item.status === 'pending' ? [index] : []));
      if (pendingItems.length === 0) {
        // Every item finished before a crash; only the settlement is missing.
        await untilTaskStored(task, () => tasks.settleIfDone(task.id));
        return;
      }
      const prepared = await prepare(task, laneName, entry, spaceTries);
      if (!prepared) return;
      // A job close() drops before it starts resolves at once, so only running items hold close() up.
      const queued = lanes.runBatch(
        laneName,
        pendingItems.map((index) => (slot: SlotGrant) => runItem(task.id, index, prepared, entry, slot)),
        await ownerOf(task, prepared),
      );
      // Settled while it was being queued (a cancel, a deadline): nothing of it waits in the lane.
      if (entry.settled) lanes.drop(queued.batch);
      entry.batch = queued.batch;
      const jobs = queued.jobs.map((job, i) =>
        track(job.catch((err: Error) => log(`task ${task.id} item ${pendingItems[i]}: ${err.message}`))),
      );
      // An item whose handler ignores its signal may never settle: stopping resolves this instead.
      let forget = () => {};
      const stopped = new Promise<void>((resolve) => {
        if (stopSignal.aborted) resolve();
        forget = whenStopping(resolve);
      });
      try {
        await Promise.race([Promise.all(jobs), stopped]);
      } finally {
        forget();
      }
    } finally {
      if (!again) live.release(task.id, entry);
    }
  }

  return {
    enqueue(task: TaskRecord): void {
      if (!accepting) throw new Error('the worker is stopping');
      // Resolved now, so an unknown type or lane fails the create call (ENQUEUE_FAILED) instead of the task later.
      const lane = tasks.definition(task.type).lane(task.request);
      void track(start(task, lane).catch((err: Error) => log(`task ${task.id}: ${err.message}`)));
    },

    queueDelayMs: (lane) => lanes.queueDelayMs(lane),

    leaseLost: (taskId) => live.leaseLost(taskId),

    progressOf: (taskId) => live.progressOf(taskId),

    /**
     * Runs a task this process claimed (leased): its pending items, each at most once here.
     * Resolves when they have all run, or when the runner stops.
     */
    async run(task: TaskRecord): Promise<void> {
      if (!accepting) return;
      const lane = tasks.definition(task.type).lane(task.request);
      await track(start(task, lane));
    },

    /** Re-enqueues tasks found pending at start-up, oldest first. */
    resume(pending: TaskRecord[]): void {
      for (const task of [...pending].sort((a, b) => (a.id < b.id ? -1 : 1))) this.enqueue(task);
    },

    /**
     * Stops taking work, drops queued jobs (they stay pending and run after a restart), and
     * gives running items `graceMs` to finish before they are told to stop.
     */
    async close(graceMs: number): Promise<void> {
      accepting = false;
      for (const off of unsubscribe) off();
      lanes.stop();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled([...inFlight]).then(() => lanes.idle()), graceOver]);
      clearTimeout(timer);
      signals.stop();
      // A handler that ignores its signal still gets only a short while more.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
    },
  };
}
