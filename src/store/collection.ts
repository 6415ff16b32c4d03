/** A secondary index kept in step with a collection. */
export interface Index<T> {
  add(record: T): void;
  remove(record: T): void;
  clear(): void;
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
  clear(): void {
    this.ids.clear();
  }
  get(key: string): string | undefined {
    return this.ids.get(key);
  }
}

/** Maps a grouping key (an account id) to the ids of its records, in insertion order. */
export class GroupIndex<T extends { id: string }> implements Index<T> {
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
  clear(): void {
    this.groups.clear();
  }
  ids(key: string): ReadonlySet<string> {
    return this.groups.get(key) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * Records by id plus their indexes. Records are never mutated in place: an update puts a
 * new object. That lets a snapshot capture a shallow copy and serialise it at leisure
 * while writes go on.
 */
export class Collection<T extends { id: string }> {
  private readonly byId = new Map<string, T>();
  constructor(
    readonly name: string,
    private readonly indexes: Index<T>[] = [],
  ) {}

  get size(): number {
    return this.byId.size;
  }
  get(id: string): T | undefined {
    return this.byId.get(id);
  }
  values(): IterableIterator<T> {
    return this.byId.values();
  }
  put(record: T): void {
    const old = this.byId.get(record.id);
    if (old) for (const index of this.indexes) index.remove(old);
    this.byId.set(record.id, record);
    for (const index of this.indexes) index.add(record);
  }
  delete(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    for (const index of this.indexes) index.remove(old);
    this.byId.delete(id);
  }
  /** A point-in-time copy of the records, for a snapshot. */
  capture(): T[] {
    return Array.from(this.byId.values());
  }
}
