import type { Collection, RecordChange } from '../collection.js';

/** The changes one commit made, and the order of each collection it deleted from, as it was before. */
interface Step {
  seq: number;
  changes: RecordChange[];
  orders: Map<Collection<{ id: string }>, string[]>;
}

/**
 * What each commit changed in memory, kept until its journal record is durable. A commit
 * changes memory at once (so checks made in the same tick see it) and its record reaches the
 * disk later; when records cannot be written (a full disk), `undoFrom` takes their changes back,
 * newest first, so that memory again holds exactly what the disk does. Cheap while nothing
 * fails: a few entries per commit, dropped once durable (a group commit later).
 */
export class UndoLog {
  private steps: Step[] = [];
  /** Steps before it are durable: dropped lazily, so releasing one is O(1). */
  private head = 0;
  private current: Step | null = null;

  /** Starts recording the changes of the commit of `seq`. */
  begin(seq: number): void {
    this.current = { seq, changes: [], orders: new Map() };
  }

  /** Ends the commit's recording; its changes stay until `release` or `undoFrom`. */
  end(): void {
    if (this.current && this.current.changes.length > 0) this.steps.push(this.current);
    this.current = null;
  }

  /** Undoes the changes of the commit being recorded (its op threw midway). */
  abort(): void {
    const step = this.current;
    this.current = null;
    if (step) reorder(this.undo(step, new Map()));
  }

  /** `Collection.onChange`: noted only while a commit records (an import's bulk fill is not). */
  record(change: RecordChange): void {
    const step = this.current;
    if (!step) return;
    // The order before the first delete of this commit: one copy of the ids per commit that deletes.
    if (change.removes && !step.orders.has(change.collection))
      step.orders.set(change.collection, change.collection.ids());
    step.changes.push(change);
  }

  /** Every commit up to `seq` is durable: its changes can no longer be undone. */
  release(seq: number): void {
    while (this.head < this.steps.length && this.steps[this.head].seq <= seq) this.head += 1;
    if (this.head === this.steps.length) {
      this.steps = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.steps.length) {
      this.steps = this.steps.slice(this.head);
      this.head = 0;
    }
  }

  /** Takes back the changes of every commit from `seq` on, newest first. */
  undoFrom(seq: number): void {
    const touched = new Map<Collection<{ id: string }>, string[] | null>();
    while (this.steps.length > this.head && this.steps[this.steps.length - 1].seq >= seq)
      this.undo(this.steps.pop()!, touched);
    reorder(touched);
  }

  private undo(
    step: Step,
    touched: Map<Collection<{ id: string }>, string[] | null>,
  ): Map<Collection<{ id: string }>, string[] | null> {
    for (let i = step.changes.length - 1; i >= 0; i--) {
      const change = step.changes[i];
      change.collection.restore(change.id, change.before);
      if (!touched.has(change.collection)) touched.set(change.collection, null);
    }
    // Steps are undone newest first, so the order kept last is that of the earliest undone delete:
    // the order before it, which no earlier undone commit changed (none deleted).
    for (const [collection, order] of step.orders) touched.set(collection, order);
    return touched;
  }
}

function reorder(touched: Map<Collection<{ id: string }>, string[] | null>): void {
  for (const [collection, order] of touched) collection.reorder(order);
}
