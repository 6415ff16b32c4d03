import type { Index } from './indexes/by-key.js';
import { LineStore, parseRecordLine, parseRecordStub } from './record-line.js';

/** A change about to be made to one record of a collection: the entry it replaces (undefined: none). */
export interface RecordChange {
  collection: Collection<{ id: string }>;
  id: string;
  /** Opaque: handed back to `Collection.restore` as it is. */
  before: unknown;
  /** A delete: the record leaves the collection's order, which a plain restore would not give back. */
  removes: boolean;
}

/**
 * Records by id plus their indexes. Records are never mutated in place: an update puts a
 * new object. That lets a snapshot capture a shallow copy and serialise it at leisure
 * while writes go on.
 *
 * A record loaded from a snapshot is kept as its record line (see `encodeRecordLine` in record-line.ts), held
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
  /**
   * A point-in-time copy for a snapshot: records, and the lines of those never read (turned into text as the copy is
   * read).
   */
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
