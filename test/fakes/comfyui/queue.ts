// execution.PromptQueue: the pending prompts (a heap on [number, prompt_id]), the one running, and
// the history of finished ones, keyed by prompt id in the order they finished.
import type { Ui } from './nodes.js';
import type { Prompt } from './validate.js';

/** A queued prompt as ComfyUI lists it: [number, prompt_id, prompt, extra_data, outputs_to_execute]. */
export type QueueItem = [
  number: number,
  promptId: string,
  prompt: Prompt,
  extraData: Record<string, unknown>,
  outputsToExecute: string[],
];

/** A status message of a job: [event, data], data carrying a millisecond timestamp. */
export type StatusMessage = [event: string, data: Record<string, unknown>];

export interface HistoryEntry {
  prompt: QueueItem;
  outputs: Record<string, Ui>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: StatusMessage[] };
  meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
}

const before = (a: QueueItem, b: QueueItem) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class PromptQueue {
  readonly pending: QueueItem[] = [];
  running: QueueItem | null = null;
  readonly history = new Map<string, HistoryEntry>();

  /** `onChange` is server.queue_updated: a "status" broadcast on every change. */
  constructor(private readonly onChange: () => void) {}

  put(item: QueueItem): void {
    const at = this.pending.findIndex((other) => before(item, other));
    this.pending.splice(at === -1 ? this.pending.length : at, 0, item);
    this.onChange();
  }

  /** Takes the next prompt to run (the lowest number first), or null. */
  take(): QueueItem | null {
    const item = this.pending.shift() ?? null;
    if (item) {
      this.running = item;
      this.onChange();
    }
    return item;
  }

  done(entry: HistoryEntry): void {
    this.running = null;
    this.history.set(entry.prompt[1], entry);
    this.onChange();
  }

  /** A restart: nothing queued, running or remembered. */
  forget(): void {
    this.pending.length = 0;
    this.running = null;
    this.history.clear();
  }

  remaining(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  /** delete_queue_item: removes the first pending prompt with that id; a running one stays. */
  delete(promptId: string): void {
    const at = this.pending.findIndex((item) => item[1] === promptId);
    if (at === -1) return;
    this.pending.splice(at, 1);
    this.onChange();
  }

  wipe(): void {
    this.pending.length = 0;
    this.onChange();
  }

  /** get_history: one entry (or {}), or the last `maxItems` from `offset`. */
  read(promptId?: string, maxItems?: number, offset = -1): Record<string, HistoryEntry> {
    if (promptId !== undefined) {
      const entry = this.history.get(promptId);
      return entry ? { [promptId]: structuredClone(entry) } : {};
    }
    const entries = [...this.history];
    const start = offset < 0 && maxItems !== undefined ? entries.length - maxItems : offset;
    const picked = entries.filter((_, i) => i >= start).slice(0, maxItems ?? entries.length);
    return Object.fromEntries(picked);
  }
}
