/** The indexes a collection keeps by a key of its records: the contract, and the kinds that map keys to ids. */

/**
 * A secondary index kept in step with a collection. Indexes read only a record's top-level
 * primitive fields (strings, numbers, booleans, null): a record loaded from a snapshot reaches
 * them as a stub of those fields until something reads it whole (see `Collection`).
 */
export interface Index<T> {
  add(record: T): void;
  remove(record: T): void;
  /**
   * `old` is replaced by `next` (same id): adjust only what changed, the hot path of every
   * update. Without it, the collection removes `old` and adds `next`.
   */
  update?(old: T, next: T): void;
  /** Start-up: like `add`, in any order; `loaded` follows the last one. */
  load?(record: T): void;
  loaded?(): void;
  clear(): void;
  /**
   * True when the index keeps records in the order they were added (listings answer in it):
   * undoing changes (`Collection.reorder`) rebuilds it from the records in collection order.
   */
  readonly insertionOrdered?: boolean;
}

/** The update of an index whose entry for a record hangs on one key: a record that keeps its key moves nothing. */
export function moveOnKeyChange<T>(index: Index<T>, keyOf: (record: T) => unknown, old: T, next: T): void {
  if (keyOf(old) === keyOf(next)) return;
  index.remove(old);
  index.add(next);
}

/** Maps a unique key (a name, a hash) to one record id. */
export class UniqueIndex<T extends { id: string }> implements Index<T> {
  private readonly ids = new Map<string, string>();
  constructor(private readonly keyOf: (record: T) => string | undefined) {}
  add(record: T): void {
    const key = this.keyOf(record);
    if (key !== undefined) this.ids.set(key, record.id);
  }
  remove(record: T): void {
    const key = this.keyOf(record);
    if (key !== undefined && this.ids.get(key) === record.id) this.ids.delete(key);
  }
  update(old: T, next: T): void {
    moveOnKeyChange(this, this.keyOf, old, next);
  }
  clear(): void {
    this.ids.clear();
  }
  get(key: string): string | undefined {
    return this.ids.get(key);
  }
}

/** Maps a grouping key (an account id) to the ids of its records, in insertion order. */
export class GroupIndex<T extends { id: string }> implements Index<T> {
  readonly insertionOrdered = true;
  private readonly groups = new Map<string, Set<string>>();
  constructor(private readonly keyOf: (record: T) => string | undefined) {}
  add(record: T): void {
    const key = this.keyOf(record);
    if (key === undefined) return;
    const group = this.groups.get(key);
    if (group) group.add(record.id);
    else this.groups.set(key, new Set([record.id]));
  }
  remove(record: T): void {
    const key = this.keyOf(record);
    if (key === undefined) return;
    const group = this.groups.get(key);
    group?.delete(record.id);
    if (group?.size === 0) this.groups.delete(key);
  }
  update(old: T, next: T): void {
    moveOnKeyChange(this, this.keyOf, old, next);
  }
  clear(): void {
    this.groups.clear();
  }
  ids(key: string): ReadonlySet<string> {
    return this.groups.get(key) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** Ids per group kept sorted, so listings page newest-first without sorting. Ids are time-sortable. */
export class OrderedGroupIndex<T extends { id: string }> implements Index<T> {
  private readonly groups = new Map<string, string[]>();
  /** Groups appended to out of order during `load`: sorted once in `loaded`. */
  private readonly unsorted = new Set<string[]>();
  constructor(private readonly keyOf: (record: T) => string | undefined) {}
  add(record: T): void {
    const key = this.keyOf(record);
    if (key === undefined) return;
    const ids = this.group(key);
    if (ids.length === 0 || ids[ids.length - 1] < record.id) ids.push(record.id);
    else {
      const at = lowerBound(ids, record.id);
      if (ids[at] !== record.id) ids.splice(at, 0, record.id);
    }
  }
  remove(record: T): void {
    const key = this.keyOf(record);
    const ids = key === undefined ? undefined : this.groups.get(key);
    if (!ids) return;
    const at = lowerBound(ids, record.id);
    if (ids[at] === record.id) ids.splice(at, 1);
  }
  /** Most updates keep the key (a task changes status, never account): then nothing moves. */
  update(old: T, next: T): void {
    moveOnKeyChange(this, this.keyOf, old, next);
  }
  /** Start-up: ids arrive mostly sorted; append, and sort a group once in `loaded` if they were not. */
  load(record: T): void {
    const key = this.keyOf(record);
    if (key === undefined) return;
    const ids = this.group(key);
    if (ids.length !== 0 && ids[ids.length - 1] >= record.id) this.unsorted.add(ids);
    ids.push(record.id);
  }
  loaded(): void {
    for (const ids of this.unsorted) ids.sort(); // ids are unique within a collection
    this.unsorted.clear();
  }
  clear(): void {
    this.groups.clear();
    this.unsorted.clear();
  }
  /** Ids of a group, ascending. Do not mutate. */
  ids(key: string): readonly string[] {
    return this.groups.get(key) ?? [];
  }
  private group(key: string): string[] {
    let ids = this.groups.get(key);
    if (!ids) {
      ids = [];
      this.groups.set(key, ids);
    }
    return ids;
  }
}

export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Ids of the records matching a predicate (pending tasks). */
export class SetIndex<T extends { id: string }> implements Index<T> {
  readonly ids = new Set<string>();
  constructor(private readonly matches: (record: T) => boolean) {}
  add(record: T): void {
    if (this.matches(record)) this.ids.add(record.id);
  }
  remove(record: T): void {
    this.ids.delete(record.id);
  }
  update(old: T, next: T): void {
    const was = this.matches(old);
    const is = this.matches(next);
    if (is && !was) this.ids.add(next.id);
    else if (was && !is) this.ids.delete(next.id);
  }
  clear(): void {
    this.ids.clear();
  }
}
