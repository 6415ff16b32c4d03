import type { LivePreview } from '../../domain/media-types.js';

/**
 * A preview larger than this is dropped: a live glimpse, not an output (ComfyUI's are a few KB to a few tens of KB).
 */
export const MAX_PREVIEW_BYTES = 256 * 1024;
/** The least time between two previews of one item sent on: at most two a second. */
export const PREVIEW_INTERVAL_MS = 500;

interface Held {
  lastAt: number;
  timer?: NodeJS.Timeout;
  /** The newest preview not sent on yet. */
  latest?: LivePreview;
}

/**
 * Relays the running items' previews, throttled per item: the first goes out at once, those
 * within `intervalMs` after it are folded into the newest, sent when the interval is over. Kept
 * in memory only, one entry (and at most one timer) per item that sent one, removed when the
 * item ends (`forgetItem`) and when the task settles (`forget`).
 */
export function createPreviewRelay(
  emit: (taskId: string, index: number, preview: LivePreview) => void,
  intervalMs = PREVIEW_INTERVAL_MS,
) {
  const tasks = new Map<string, Map<number, Held>>();
  const send = (taskId: string, index: number, held: Held) => {
    held.timer = undefined;
    const preview = held.latest;
    if (!preview) return;
    held.latest = undefined;
    held.lastAt = Date.now();
    emit(taskId, index, preview);
  };
  return {
    /** A running item's newest preview; dropped when too large or not an image the relay knows. */
    report(taskId: string, index: number, preview: LivePreview): void {
      if (!Buffer.isBuffer(preview?.data) || preview.data.length === 0 || preview.data.length > MAX_PREVIEW_BYTES)
        return;
      let items = tasks.get(taskId);
      if (!items) {
        items = new Map();
        tasks.set(taskId, items);
      }
      let held = items.get(index);
      if (!held) {
        held = { lastAt: Number.NEGATIVE_INFINITY };
        items.set(index, held);
      }
      held.latest = preview;
      if (held.timer) return;
      const wait = held.lastAt + intervalMs - Date.now();
      if (wait <= 0) send(taskId, index, held);
      else {
        const due = held;
        due.timer = setTimeout(() => send(taskId, index, due), wait);
        due.timer.unref();
      }
    },
    /** The item ended (its output or failure is what comes next): its preview not yet sent goes. */
    forgetItem(taskId: string, index: number): void {
      const items = tasks.get(taskId);
      const held = items?.get(index);
      if (!items || !held) return;
      clearTimeout(held.timer);
      items.delete(index);
      if (items.size === 0) tasks.delete(taskId);
    },
    /** The task is done with here: nothing more is sent for it. */
    forget(taskId: string): void {
      for (const held of tasks.get(taskId)?.values() ?? []) clearTimeout(held.timer);
      tasks.delete(taskId);
    },
    /** Items with an entry (for tests: none once their items ended). */
    size: () => [...tasks.values()].reduce((n, items) => n + items.size, 0),
  };
}
