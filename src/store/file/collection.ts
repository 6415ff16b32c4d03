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

/** A change about to be made to one record of a collection: the entry it replaces (undefined: none). */
export interface RecordChange {
  collection: Collection<{ id: string }>;
  id: string;
  /** Opaque: handed back to `Collection.restore` as it is. */
  before: unknown;
  /** A delete: the record leaves the collection's order, which a plain restore would not give back. */
  removes: boolean;
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
    if (this.keyOf(old) === this.keyOf(next)) return;
    this.remove(old);
    this.add(next);
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
    if (this.keyOf(old) === this.keyOf(next)) return;
    this.remove(old);
    this.add(next);
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
 * A record as a snapshot stores it, and as a collection keeps it until it is first read: its
 * top-level primitive fields as one JSON object, a tab, then its other fields (objects and
 * arrays) as another (`{}` when none). JSON never holds a raw tab, so the split is unambiguous.
 * Kept as one flat string, a million stored records cost the GC a million leaf objects instead
 * of tens of millions of small ones, and start-up parses only the short first half (the fields
 * the indexes read).
 */
export function encodeRecordLine(record: object): string {
  const flat: Record<string, unknown> = {};
  const nested: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'object' && value !== null) nested[key] = value;
    else flat[key] = value;
  }
  return `${JSON.stringify(flat)}\t${JSON.stringify(nested)}`;
}

/** The primitive fields of a record line: what indexes need (throws if the line is not one). */
export function parseRecordStub<T>(line: string): T {
  return JSON.parse(line.slice(0, line.indexOf('\t')));
}

/** The whole record of a line: both halves joined into one object text, parsed once. */
export function parseRecordLine<T>(line: string): T {
  const tab = line.indexOf('\t');
  if (line.length - tab === 3 && line.endsWith('{}')) return JSON.parse(line.slice(0, tab));
  return JSON.parse(`${line.slice(0, tab - 1)},${line.slice(tab + 2)}`);
}

/**
 * Snapshot lines kept as read, off the JS heap: the file's chunks, and a number per line
 * (its place in them), so a million stored records give the GC nothing to trace. A chunk stays
 * while any of its lines is unread, at most the size of the snapshot.
 */
class LineStore {
  private readonly chunks: Buffer[] = [];
  private readonly bases: number[] = [];
  private end = 0;
  /** A handle to the newline-terminated line starting at `chunk[start]`. */
  keep(chunk: Buffer, start: number): number {
    if (this.chunks[this.chunks.length - 1] !== chunk) {
      this.chunks.push(chunk);
      this.bases.push(this.end);
      this.end += chunk.length;
    }
    return this.bases[this.bases.length - 1] + start;
  }
  text(handle: number): string {
    let lo = 0;
    let hi = this.bases.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.bases[mid] <= handle) lo = mid;
      else hi = mid - 1;
    }
    const chunk = this.chunks[lo];
    const start = handle - this.bases[lo];
    return chunk.toString('utf8', start, chunk.indexOf(10, start));
  }
}

/**
 * Records by id plus their indexes. Records are never mutated in place: an update puts a
 * new object. That lets a snapshot capture a shallow copy and serialise it at leisure
 * while writes go on.
 *
 * A record loaded from a snapshot is kept as its record line (see `encodeRecordLine`), held
 * by a number (`LineStore`), until first read: `get` parses it then and keeps the object;
 * `values` parses without keeping, so one pass over everything (doctor) does not leave the
 * whole store parsed; a snapshot writes unread lines back as they are.
 */
export class Collection<T extends { id: string }> {
  private readonly byId = new Map<string, T | number>();
  private readonly lines = new LineStore();
  /**
   * Told of every put and delete before it is made, with the entry it replaces: the journal
   * engine keeps these until the change's record is durable, so that it can undo the changes of
   * records that never reached the disk. Null while nothing listens (start-up, replay).
   */
  onChange: ((change: RecordChange) => void) | null = null;
  constructor(
    readonly name: string,
    private readonly indexes: Index<T>[] = [],
  ) {}

  get size(): number {
    return this.byId.size;
  }
  get(id: string): T | undefined {
    const entry = this.byId.get(id);
    if (typeof entry !== 'number') return entry;
    const record = this.parse(entry);
    this.byId.set(id, record);
    return record;
  }
  /** Like `get`, but a record still kept as its line is parsed without being kept (one pass over many records). */
  peek(id: string): T | undefined {
    const entry = this.byId.get(id);
    return typeof entry === 'number' ? this.parse(entry) : entry;
  }
  *values(): IterableIterator<T> {
    for (const entry of this.byId.values()) yield typeof entry === 'number' ? this.parse(entry) : entry;
  }
  put(record: T): void {
    const old = this.byId.get(record.id);
    this.onChange?.({ collection: this as Collection<{ id: string }>, id: record.id, before: old, removes: false });
    this.byId.set(record.id, record);
    if (old === undefined) {
      for (const index of this.indexes) index.add(record);
      return;
    }
    const before = this.indexed(old);
    for (const index of this.indexes) {
      if (index.update) index.update(before, record);
      else {
        index.remove(before);
        index.add(record);
      }
    }
  }
  delete(id: string): void {
    const old = this.byId.get(id);
    if (old === undefined) return;
    this.onChange?.({ collection: this as Collection<{ id: string }>, id, before: old, removes: true });
    const before = this.indexed(old);
    for (const index of this.indexes) index.remove(before);
    this.byId.delete(id);
  }
  /** Start-up: adds a record to the collection through the indexes' bulk path; `loaded()` follows the last. */
  load(record: T): void {
    if (this.byId.has(record.id))
      this.put(record); // not in a snapshot this store wrote; kept correct rather than fast
    else this.loadAs(record, record);
  }
  /** Start-up: the same for a record line at `chunk[start, end)`, kept unparsed (`chunk` must not change). */
  loadLine(chunk: Buffer, start: number, end: number): void {
    const tab = chunk.indexOf(9, start);
    if (tab === -1 || tab >= end) throw new SyntaxError('not a record line');
    const stub = JSON.parse(chunk.toString('utf8', start, tab)) as T;
    if (typeof stub?.id !== 'string') throw new SyntaxError('a record without an id');
    if (this.byId.has(stub.id)) this.put(parseRecordLine<T>(chunk.toString('utf8', start, end)));
    else this.loadAs(stub, this.lines.keep(chunk, start));
  }
  loaded(): void {
    for (const index of this.indexes) index.loaded?.();
  }
  /**
   * Puts back the entry a change replaced (`RecordChange.before`), indexes included: undoing a
   * change whose journal record never reached the disk. Not reported to `onChange`.
   */
  restore(id: string, before: unknown): void {
    const entry = before as T | number | undefined;
    const current = this.byId.get(id);
    if (entry === undefined) {
      if (current === undefined) return;
      const old = this.indexed(current);
      for (const index of this.indexes) index.remove(old);
      this.byId.delete(id);
      return;
    }
    const next = this.indexed(entry);
    this.byId.set(id, entry);
    if (current === undefined) {
      for (const index of this.indexes) index.add(next);
      return;
    }
    const old = this.indexed(current);
    for (const index of this.indexes) {
      if (index.update) index.update(old, next);
      else {
        index.remove(old);
        index.add(next);
      }
    }
  }
  /** Ids in the order the collection holds them: the order snapshots write and listings follow. */
  ids(): string[] {
    return Array.from(this.byId.keys());
  }
  /**
   * After `restore`s: a record put back after a delete went to the end, so the records are put
   * back in `order` (the ids as held before the first undone delete; null when no delete was
   * undone), then the insertion-ordered indexes are rebuilt in that order. Memory then lists
   * records in the order a restart would load them.
   */
  reorder(order: readonly string[] | null): void {
    if (order) {
      const entries = new Map<string, T | number>();
      for (const id of order) {
        const entry = this.byId.get(id);
        if (entry !== undefined) entries.set(id, entry);
      }
      for (const [id, entry] of this.byId) if (!entries.has(id)) entries.set(id, entry);
      this.byId.clear();
      for (const [id, entry] of entries) this.byId.set(id, entry);
    }
    const ordered = this.indexes.filter((index) => index.insertionOrdered);
    if (ordered.length === 0) return;
    for (const index of ordered) index.clear();
    for (const entry of this.byId.values()) {
      const record = this.indexed(entry);
      for (const index of ordered) index.add(record);
    }
  }
  /** A point-in-time copy of the records (parsed), for listings and tests. */
  capture(): T[] {
    return Array.from(this.byId.keys(), (id) => this.get(id)!);
  }
  /** A point-in-time copy for a snapshot: records, and the lines of those never read (turned into text as the copy is read). */
  captureEntries(): { length: number } & Iterable<T | string> {
    const entries = Array.from(this.byId.values());
    const lines = this.lines;
    return {
      length: entries.length,
      *[Symbol.iterator]() {
        for (const entry of entries) yield typeof entry === 'number' ? lines.text(entry) : entry;
      },
    };
  }
  private loadAs(indexed: T, entry: T | number): void {
    this.byId.set(indexed.id, entry);
    for (const index of this.indexes) {
      if (index.load) index.load(indexed);
      else index.add(indexed);
    }
  }
  /** Start-up checked only the first half of a line: a damaged second half is named here, on first read. */
  private parse(handle: number): T {
    const line = this.lines.text(handle);
    try {
      return parseRecordLine<T>(line);
    } catch (err) {
      throw new Error(
        `store: a ${this.name} record in snapshot.json is unreadable (${(err as Error).message}): ${line.slice(0, 80)}…`,
      );
    }
  }
  /** What indexes see of an entry: the record, or the stub of an unread line. */
  private indexed(entry: T | number): T {
    return typeof entry === 'number' ? parseRecordStub<T>(this.lines.text(entry)) : entry;
  }
}
