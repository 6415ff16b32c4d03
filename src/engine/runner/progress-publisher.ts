import type { ItemFractions } from '../../services/event-bus.js';

/** The least time between two progress events of one task: at most four a second. */
export const PROGRESS_INTERVAL_MS = 250;

/**
 * Announces changes of a task's running items' fractions, throttled per task: the first change
 * goes out at once, those within `intervalMs` after it are folded into one more, sent when the
 * interval is over and reading the latest fractions then, so the last value is always delivered.
 * One entry (and at most one timer) per task that reported progress, removed by `forget`.
 */
export function createProgressPublisher(
  emit: (taskId: string, fractions: ItemFractions) => void,
  intervalMs = PROGRESS_INTERVAL_MS,
) {
  const tasks = new Map<string, { lastAt: number; timer?: NodeJS.Timeout; read: () => ItemFractions }>();
  return {
    /** The fractions of `taskId` changed; `read` answers them as they are when the event goes out. */
    changed(taskId: string, read: () => ItemFractions): void {
      let entry = tasks.get(taskId);
      if (!entry) {
        entry = { lastAt: Number.NEGATIVE_INFINITY, read };
        tasks.set(taskId, entry);
      }
      entry.read = read;
      // An event is due already: it reads the fractions as they are then.
      if (entry.timer) return;
      const wait = entry.lastAt + intervalMs - Date.now();
      const send = (held: typeof entry) => {
        held.timer = undefined;
        held.lastAt = Date.now();
        emit(taskId, held.read());
      };
      if (wait <= 0) send(entry);
      else {
        const held = entry;
        held.timer = setTimeout(() => send(held), wait);
        held.timer.unref();
      }
    },
    /** The task is done with here (settled, or no longer run by this process): nothing more is sent for it. */
    forget(taskId: string): void {
      const entry = tasks.get(taskId);
      if (!entry) return;
      clearTimeout(entry.timer);
      tasks.delete(taskId);
    },
    /** Tasks with an entry (for tests: none once their tasks are done). */
    size: () => tasks.size,
  };
}
