import type { LivePreview } from '../../domain/media-types.js';
import type { EventBus, ItemFractions } from '../../services/event-bus.js';
import type { TaskRecord } from '../task-registry.js';
import type { LaneBatch } from './lanes.js';
import { createPreviewRelay } from './preview-relay.js';
import { createProgressPublisher } from './progress-publisher.js';

/** Where a task this runner holds stands: in memory only, never journaled. */
export interface RunnerProgress {
  /** Each running item's fraction 0..1, by item index, for the items whose provider reports one. */
  fractions: ItemFractions;
  /** Tasks ahead of it in its lane while none of its items has started. */
  queuePosition?: number;
  /**
   * From now until its first item starts (while none has), and until its last one ends: estimates from the lane's item
   * times.
   */
  startInMs?: number;
  finishInMs?: number;
}

/** A task this runner holds, from its start to its end here. */
export interface LiveTask {
  /** Its items in their lane, once prepared and queued. */
  batch?: LaneBatch;
  /**
   * The fraction each running item reported, with the run of it it belongs to (a retry starts again from 0); made at
   * the first report.
   */
  items?: Map<number, { run: number; fraction: number }>;
  /**
   * Runs of its items begun here (attempts, counted across the task: attempt numbers start again when a full disk has
   * an item run again).
   */
  runs: number;
  /** Settled (here or elsewhere): late reports are ignored. */
  settled: boolean;
  /** The task as it was when it started here: its items are checked against it, with no read per item. */
  task?: TaskRecord;
  /** Its lease was lost (another process may run it): each item reads the task again before it runs. */
  stale?: boolean;
}

/**
 * The tasks a runner holds and how far their running items have come: the fractions each run
 * reports (announced as `task:progress`, throttled) and their live previews (`task:preview`).
 * One entry per task started (not per task queued on a list of listeners).
 */
export function createLiveTasks(options: { events?: EventBus; progressIntervalMs?: number }) {
  const { events } = options;
  const live = new Map<string, LiveTask>();
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

  return {
    get: (taskId: string): LiveTask | undefined => live.get(taskId),

    /** Holds a task from its start here; answers its entry. */
    hold(task: TaskRecord): LiveTask {
      // Every field named at once: an object keeps the fields it is made with in itself, one added later costs an array
      // of its own.
      const entry: LiveTask = { batch: undefined, items: undefined, runs: 0, settled: false, task, stale: false };
      live.set(task.id, entry);
      return entry;
    },

    /** The task's items have all run here (or the runner stopped): late reports are ignored. */
    release(taskId: string, entry: LiveTask): void {
      if (live.get(taskId) === entry) live.delete(taskId);
      entry.settled = true;
      publisher.forget(taskId);
    },

    /** A settled task's progress is gone: its settlement says the rest. */
    forget(taskId: string): void {
      const entry = live.get(taskId);
      if (entry) {
        entry.settled = true;
        entry.items = undefined;
        live.delete(taskId);
      }
      publisher.forget(taskId);
      previews.forget(taskId);
    },

    /** A new run (a retry) of an item: a fraction an earlier one reported goes back to 0. Answers the run's number. */
    beginRun(taskId: string, entry: LiveTask, index: number): number {
      const run = ++entry.runs;
      if (entry.items?.has(index) && !entry.settled) {
        entry.items.set(index, { run, fraction: 0 });
        publisher.changed(taskId, () => fractionsOf(entry));
      }
      return run;
    },

    /**
     * A run (attempt) of an item reports how far it has come: clamped to 0..1, never back within a run, a newer run's
     * starting again.
     */
    report(taskId: string, entry: LiveTask, index: number, run: number, fraction: number): void {
      if (entry.settled || typeof fraction !== 'number' || Number.isNaN(fraction)) return;
      const clamped = Math.min(1, Math.max(0, fraction));
      const current = entry.items?.get(index);
      if (current && (current.run > run || (current.run === run && clamped <= current.fraction))) return;
      entry.items ??= new Map();
      entry.items.set(index, { run, fraction: clamped });
      publisher.changed(taskId, () => fractionsOf(entry));
    },

    reportPreview(taskId: string, entry: LiveTask, index: number, preview: LivePreview): void {
      if (!entry.settled) previews.report(taskId, index, preview);
    },

    /** The item has ended: its fraction and preview go (before its record does, whose event shows it finished). */
    itemEnded(taskId: string, entry: LiveTask, index: number): void {
      entry.items?.delete(index);
      previews.forgetItem(taskId, index);
    },

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
  };
}
