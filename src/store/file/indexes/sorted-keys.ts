import type { Index } from './by-key.js';
import { lowerBound } from './by-key.js';

/**
 * Sorted strings kept in blocks of at most 1,024: adding or removing one costs two binary
 * searches and a splice of one block, however many there are (a single sorted array would
 * move every later entry on each change).
 */
export class SortedBlocks {
  private blocks: string[][] = [];
  /** Blocks of keys already sorted (start-up): no search or splice per key. */
  static fromSorted(keys: string[]): SortedBlocks {
    const sorted = new SortedBlocks();
    for (let at = 0; at < keys.length; at += 512) sorted.blocks.push(keys.slice(at, at + 512));
    return sorted;
  }
  get empty(): boolean {
    return this.blocks.length === 0;
  }
  add(key: string): void {
    if (this.blocks.length === 0) {
      this.blocks.push([key]);
      return;
    }
    const b = this.blockOf(key);
    const block = this.blocks[b];
    block.splice(lowerBound(block, key), 0, key);
    if (block.length > 1024) this.blocks.splice(b + 1, 0, block.splice(512));
  }
  remove(key: string): void {
    if (this.blocks.length === 0) return;
    const b = this.blockOf(key);
    const block = this.blocks[b];
    const at = lowerBound(block, key);
    if (block[at] !== key) return;
    block.splice(at, 1);
    if (block.length === 0) this.blocks.splice(b, 1);
  }
  clear(): void {
    this.blocks = [];
  }
  *values(): Generator<string> {
    for (const block of this.blocks) yield* block;
  }
  /** The first block whose last key is not below `key` (or the last block). */
  private blockOf(key: string): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid];
      if (block[block.length - 1] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Where a record sits in a `TimeOrderIndex`: its group (an account; '' for none) and its time (ISO, fixed width). */
export interface TimePlace {
  group: string;
  time: string;
}

/**
 * Records by group, in order of a time (then id), so a sweep takes the oldest few of an account
 * without scanning the rest. Keys are `time id`: ISO times of one fixed width sort as text.
 * `placeOf` answers undefined for a record the index leaves out; it must read only top-level
 * primitive fields (see `Index`).
 */
export class TimeOrderIndex<T extends { id: string }> implements Index<T> {
  private readonly groups = new Map<string, SortedBlocks>();
  /** Keys met by `load`, per group: sorted once in `loaded`. */
  private loading = new Map<string, string[]>();
  constructor(private readonly placeOf: (record: T) => TimePlace | undefined) {}
  load(record: T): void {
    const place = this.placeOf(record);
    if (!place) return;
    const keys = this.loading.get(place.group);
    if (keys) keys.push(`${place.time} ${record.id}`);
    else this.loading.set(place.group, [`${place.time} ${record.id}`]);
  }
  loaded(): void {
    for (const [group, keys] of this.loading) {
      const present = this.groups.get(group);
      if (present) for (const key of keys) present.add(key);
      else this.groups.set(group, SortedBlocks.fromSorted(keys.sort()));
    }
    this.loading = new Map();
  }
  add(record: T): void {
    const place = this.placeOf(record);
    if (!place) return;
    let keys = this.groups.get(place.group);
    if (!keys) {
      keys = new SortedBlocks();
      this.groups.set(place.group, keys);
    }
    keys.add(`${place.time} ${record.id}`);
  }
  remove(record: T): void {
    const place = this.placeOf(record);
    // Between `load` and `loaded` only when a start-up meets an id twice: rare, so a walk will do.
    const pending = place && this.loading.get(place.group);
    if (pending) {
      const at = pending.indexOf(`${place.time} ${record.id}`);
      if (at !== -1) pending.splice(at, 1);
    }
    const keys = place && this.groups.get(place.group);
    if (!keys) return;
    keys.remove(`${place.time} ${record.id}`);
    if (keys.empty) this.groups.delete(place.group);
  }
  update(old: T, next: T): void {
    const before = this.placeOf(old);
    const after = this.placeOf(next);
    if (before?.group === after?.group && before?.time === after?.time) return;
    this.remove(old);
    this.add(next);
  }
  clear(): void {
    this.groups.clear();
    this.loading = new Map();
  }
  /** The group's records whose time is before `before`, oldest first (then by id). */
  *before(group: string, before: string): Generator<{ time: string; id: string }> {
    const keys = this.groups.get(group);
    if (!keys) return;
    for (const key of keys.values()) {
      const space = key.indexOf(' ');
      const time = key.slice(0, space);
      if (time >= before) return;
      yield { time, id: key.slice(space + 1) };
    }
  }
}

/** Two ascending `before` walks merged into one, ascending (by time, then id). */
export function* mergeByTime(
  a: Iterator<{ time: string; id: string }>,
  b: Iterator<{ time: string; id: string }>,
): Generator<{ time: string; id: string }> {
  let x = a.next();
  let y = b.next();
  while (!x.done || !y.done) {
    if (
      y.done ||
      (!x.done && (x.value.time < y.value.time || (x.value.time === y.value.time && x.value.id < y.value.id)))
    ) {
      yield x.value;
      x = a.next();
    } else {
      yield y.value;
      y = b.next();
    }
  }
}
