import type { ConfigSource } from '../../config/source.js';
import type { LivePreview } from '../../domain/media-types.js';
import { isOutOfSpace } from '../../domain/storage-full.js';
import { ProviderError } from '../../domain/tasks.js';
import type { EventBus, ItemFractions } from '../../services/events.js';
import type { StoredFile } from '../../store/records.js';
import type { LaneBacklog } from '../load-limits.js';
import type { ItemRecord, Prepared, TaskRecord } from '../task-registry.js';
import type { TaskSettler } from '../task-settler.js';
import type { JobOwner, LaneBatch, Lanes, SlotGrant } from './lanes.js';
import { createPreviewRelay } from './preview-relay.js';
import { createProgressPublisher } from './progress-publisher.js';
import { abortableSleep, withRetry } from './retry.js';
import { pauseForSpace, whileStorageFull } from './storage-wait.js';

/** An item's failure for the log: its message and, when something unexpected was thrown underneath, that with its stack. */
function describeFailure(error: Error): string {
  const { cause } = error;
  if (cause === undefined) return error.message;
  return `${error.message}: ${cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause)}`;
}

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
  /** Removes files an item stored that no record names (its task settled, or its data removed, before the item was recorded); none: they stay. */
  discardFiles?: (files: readonly StoredFile[]) => Promise<void>;
}

/** Where a task this runner holds stands: in memory only, never journaled. */
export interface RunnerProgress {
  /** Each running item's fraction 0..1, by item index, for the items whose provider reports one. */
  fractions: ItemFractions;
  /** Tasks ahead of it in its lane while none of its items has started. */
  queuePosition?: number;
  /** From now until its first item starts (while none has), and until its last one ends: estimates from the lane's item times. */
  startInMs?: number;
  finishInMs?: number;
}

/** A task this runner holds, from its start to its end here. */
interface LiveTask {
  /** Its items in their lane, once prepared and queued. */
  batch?: LaneBatch;
  /** The fraction each running item reported, with the run of it it belongs to (a retry starts again from 0); made at the first report. */
  items?: Map<number, { run: number; fraction: number }>;
  /** Runs of its items begun here (attempts, counted across the task: attempt numbers start again when a full disk has an item run again). */
  runs: number;
  /** Settled (here or elsewhere): late reports are ignored. */
  settled: boolean;
  /** The task as it was when it started here: its items are checked against it, with no read per item. */
  task?: TaskRecord;
  /** Its lease was lost (another process may run it): each item reads the task again before it runs. */
  stale?: boolean;
}

/** The runner as the intakes drive it (intake/local.ts queues into it, intake/shared.ts hands it claimed tasks). */
export interface TaskRunner extends LaneBacklog {
  /** Schedules the task's pending items. Throws when the runner cannot take work (then the create fails with ENQUEUE_FAILED). */
  enqueue(task: TaskRecord): void;
  resume(pending: TaskRecord[]): void;
  run(task: TaskRecord): Promise<void>;
  close(graceMs: number): Promise<void>;
  /** The lease of a task held here was lost (another process may run it): its items read it again before each runs. */
  leaseLost(taskId: string): void;
  /** Where a task held here stands (its running items' fractions, its queue position, estimates); undefined when this runner does not hold it. */
  progressOf(taskId: string): RunnerProgress | undefined;
}

/**
 * Runs tasks: each pending item of a task becomes one job in its type's lane; each finished
 * item is journaled at once, so after a crash only unfinished items run again, and the task
 * is settled (charged) exactly once, by whichever item finishes last.
 */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { settlement: tasks, lanes, log } = options;
  const stopping = new AbortController();
  /**
   * What is told when the runner stops: each task waiting for its items, each running item's
   * abort. A Set, not listeners on `stopping.signal`: EventTarget checks each new listener
   * against all it holds, so one per queued task made every create cost as much as the backlog.
   */
  const onStop = new Set<() => void>();
  const whenStopping = (fn: () => void): (() => void) => {
    onStop.add(fn);
    return () => onStop.delete(fn);
  };
  let accepting = true;
  const inFlight = new Set<Promise<unknown>>();
  /** The signals of the items running now, per task: a task settled under them (cancelled) aborts them. */
  const running = new Map<string, Set<AbortController>>();
  /** The tasks held here, for their progress: one entry per task started (not per task queued on a list of listeners). */
  const live = new Map<string, LiveTask>();
  const events = options.events;
  const publisher = createProgressPublisher(
    (taskId, fractions) => events?.emit('task:progress', { taskId, fractions }),
    options.progressIntervalMs,
  );
  /** Running items' live previews, at most two a second per item, in memory only. */
  const previews = createPreviewRelay((taskId, index, { mimeType, data }) =>
    events?.emit('task:preview', { taskId, index, mimeType, data }),
  );
  const fractionsOf = (entry: LiveTask): ItemFractions => {
    const out: ItemFractions = {};
    for (const [index, { fraction }] of entry.items ?? []) out[index] = fraction;
    return out;
  };
  /** A settled task's progress is gone: its settlement says the rest. */
  const forgetProgress = (taskId: string) => {
    const entry = live.get(taskId);
    if (entry) {
      entry.settled = true;
      entry.items = undefined;
      live.delete(taskId);
    }
    publisher.forget(taskId);
    previews.forget(taskId);
  };
  /** A run (attempt) of an item reports how far it has come: clamped to 0..1, never back within a run, a newer run's starting again. */
  const report = (taskId: string, entry: LiveTask, index: number, run: number, fraction: number) => {
    if (entry.settled || typeof fraction !== 'number' || Number.isNaN(fraction)) return;
    const clamped = Math.min(1, Math.max(0, fraction));
    const current = entry.items?.get(index);
    if (current && (current.run > run || (current.run === run && clamped <= current.fraction))) return;
    entry.items ??= new Map();
    entry.items.set(index, { run, fraction: clamped });
    publisher.changed(taskId, () => fractionsOf(entry));
  };
  /** A new run (a retry) of an item: a fraction an earlier one reported goes back to 0. Answers the run's number. */
  const beginRun = (taskId: string, entry: LiveTask, index: number): number => {
    const run = ++entry.runs;
    if (entry.items?.has(index) && !entry.settled) {
      entry.items.set(index, { run, fraction: 0 });
      publisher.changed(taskId, () => fractionsOf(entry));
    }
    return run;
  };
  const abortTask = (taskId: string) => {
    // Its items still queued leave their lane now: they no longer count ahead of anyone.
    const batch = live.get(taskId)?.batch;
    if (batch) lanes.drop(batch);
    forgetProgress(taskId);
    for (const controller of running.get(taskId) ?? [])
      controller.abort(new Error(`task ${taskId} settled (cancelled) while this item ran`));
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

  const itemPending = (task: TaskRecord | undefined, index: number): task is TaskRecord =>
    task?.status === 'pending' && task.items[index]?.status === 'pending';

  async function stillPending(taskId: string, index: number): Promise<boolean> {
    return itemPending(await tasks.getTask(taskId), index);
  }

  /**
   * Runs `work` (an item, or the task's prepare) with a signal of its own that aborts when the
   * runner stops or its task settles (cancelled) meanwhile: every fetch and provider call the
   * work makes takes it, so an abort closes them at once. Whatever a handler hangs on that
   * signal goes with the item, and the runner's signal holds one listener per running item,
   * removed when the item ends.
   */
  async function withItemSignal<T>(taskId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const item = new AbortController();
    if (stopping.signal.aborted) item.abort();
    const forget = whenStopping(() => item.abort());
    const ofTask = running.get(taskId) ?? new Set();
    running.set(taskId, ofTask.add(item));
    try {
      return await work(item.signal);
    } finally {
      forget();
      ofTask.delete(item);
      if (ofTask.size === 0 && running.get(taskId) === ofTask) running.delete(taskId);
    }
  }

  /**
   * Runs `step` again while it is refused for lack of space (the store refusing writes, a full
   * disk under a blob), with the retry backoff: the work stays pending meanwhile, never failed
   * with a code of its own. Null once the runner stops or `wanted` turns false.
   */
  const untilStored = <T>(label: string, step: () => Promise<T>, wanted: () => Promise<boolean>) =>
    whileStorageFull(step, {
      signal: stopping.signal,
      wanted,
      firstMs: Math.max(10, options.config.current().work.retryBaseMs),
      onRefused: (err) => log(`${label}: kept pending, storage full (${err.message}); tried again until space is back`),
    });

  /**
   * Removes the files of an item run that its record does not hold (the task settled or was
   * deleted under it, another process recorded the item, or the runner stopped mid-item): no
   * task refers to them, so nothing else would.
   */
  async function discardUnrecorded(taskId: string, index: number, files: readonly StoredFile[]): Promise<void> {
    if (files.length === 0 || !options.discardFiles) return;
    // A record that failed after its write (the settlement refused for lack of space) may hold them: read back.
    const item = (await tasks.getTask(taskId))?.items[index];
    const kept = new Set((item?.files ?? []).map((file) => file.name));
    const stray = files.filter((file) => !kept.has(file.name));
    if (stray.length === 0) return;
    await options
      .discardFiles(stray)
      .catch((err: Error) =>
        log(
          `task ${taskId} item ${index}: files no record names not removed (${err.message}); doctor --fix removes them`,
        ),
      );
  }

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
      if (!recorded) await discardUnrecorded(taskId, index, files);
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
    if (stopping.signal.aborted || entry.settled) return false;
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
              const run = beginRun(taskId, entry, index);
              const reportProgress = (fraction: number) => report(taskId, entry, index, run, fraction);
              const reportPreview = (preview: LivePreview) => {
                if (!entry.settled) previews.report(taskId, index, preview);
              };
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
    entry.items?.delete(index);
    previews.forgetItem(taskId, index);
    if (!ran) return false;
    const outcome = ran.value;
    // Stopping mid-item: leave it pending so the next start runs it again (however the abort made it fail: a fetch cut short fails FETCH_FAILED, not retried).
    if (stopping.signal.aborted && !outcome.ok) return false;
    const code = outcome.ok ? undefined : (def.itemErrorCode?.(outcome.error.code) ?? outcome.error.code);
    const item: ItemRecord = outcome.ok
      ? {
          status: 'success',
          result: outcome.value,
          cost: def.itemCost(task.request, index),
          attempts: outcome.attempts,
        }
      : { status: 'failed', error: { code: code!, message: outcome.error.message }, attempts: outcome.attempts };
    // Every file its runs stored, a failed attempt's too: deleting the task removes them all.
    if (files.length > 0) item.files = [...files];
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
      // The start-time record says which other items are finished only for a task of one item (or one read just now): else it is read again here, outside the slot.
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
   * Runs the task's pending items in its lane; resolves once each has run (or was dropped by
   * stopping). Its progress is held meanwhile (`live`), by the first call only (a call again
   * after a full disk carries on with the same entry).
   */
  async function start(
    task: TaskRecord,
    laneName: string,
    again?: { entry: LiveTask; spaceTries: number },
  ): Promise<void> {
    // Every field named at once: an object keeps the fields it is made with in itself, one added later costs an array of its own.
    const entry: LiveTask = again?.entry ?? {
      batch: undefined,
      items: undefined,
      runs: 0,
      settled: false,
      task,
      stale: false,
    };
    const spaceTries = again?.spaceTries ?? 0;
    if (again) again.entry.task = task;
    if (!again) live.set(task.id, entry);
    try {
      // Its deadline passed before it could start here (a restart, a late claim): it is ended, not begun.
      if (task.deadlineAt !== undefined && Date.parse(task.deadlineAt) <= Date.now() && !again) {
        await untilStored(
          `task ${task.id}`,
          () => tasks.expire(task.id),
          async () => true,
        );
        return;
      }
      const def = tasks.definition(task.type);
      const pendingItems = task.items.flatMap((item, index) => (item.status === 'pending' ? [index] : []));
      if (pendingItems.length === 0) {
        // Every item finished before a crash; only the settlement is missing.
        await untilStored(
          `task ${task.id}`,
          () => tasks.settleIfDone(task.id),
          async () => true,
        );
        return;
      }
      let prepared: Prepared = {};
      if (def.prepare) {
        try {
          // What it saves is journaled with the first item made with it (finishItem), not on its own.
          prepared = await withItemSignal(task.id, (signal) => def.prepare!(task, task.request, signal));
        } catch (err) {
          // Stopping while preparing (its fetches aborted): the task stays pending and is prepared again on the next start.
          if (stopping.signal.aborted) return;
          // Refused for lack of space (what prepare worked out not saved): the task stays pending and starts again once space is back.
          if (isOutOfSpace(err)) {
            if (spaceTries === 0)
              log(
                `task ${task.id}: kept pending, storage full (${(err as Error).message}); prepared again until space is back`,
              );
            if (
              !(await pauseForSpace(
                spaceTries,
                Math.max(10, options.config.current().work.retryBaseMs),
                stopping.signal,
              ))
            )
              return;
            const fresh = await tasks.getTask(task.id);
            if (fresh?.status === 'pending') await start(fresh, laneName, { entry, spaceTries: spaceTries + 1 });
            return;
          }
          const error =
            err instanceof ProviderError ? err : new ProviderError('UNKNOWN_ERROR', 'the task could not be prepared');
          if (!(err instanceof ProviderError)) log(`task ${task.id}: prepare failed: ${(err as Error).stack ?? err}`);
          await untilStored(
            `task ${task.id}`,
            () => tasks.fail(task.id, [{ code: error.code, message: error.message }]),
            async () => true,
          );
          return;
        }
      }
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
        if (stopping.signal.aborted) resolve();
        forget = whenStopping(resolve);
      });
      try {
        await Promise.race([Promise.all(jobs), stopped]);
      } finally {
        forget();
      }
    } finally {
      if (!again) {
        if (live.get(task.id) === entry) live.delete(task.id);
        entry.settled = true;
        publisher.forget(task.id);
      }
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

    leaseLost(taskId: string): void {
      const entry = live.get(taskId);
      if (entry) entry.stale = true;
    },

    progressOf(taskId: string): RunnerProgress | undefined {
      const entry = live.get(taskId);
      if (!entry) return undefined;
      const out: RunnerProgress = { fractions: fractionsOf(entry) };
      if (!entry.batch) return out;
      const queuePosition = entry.batch.queuePosition();
      if (queuePosition !== undefined) out.queuePosition = queuePosition;
      const { startInMs, finishInMs } = entry.batch.estimate();
      if (startInMs !== undefined) out.startInMs = startInMs;
      if (finishInMs !== undefined) out.finishInMs = finishInMs;
      return out;
    },

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
      stopping.abort();
      for (const fn of [...onStop]) fn();
      onStop.clear();
      // A handler that ignores its signal still gets only a short while more.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
    },
  };
}
