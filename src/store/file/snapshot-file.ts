import { access, open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { replaceFileDurably, type StorageFs } from '../durable-fs.js';
import { StoreCorruptError } from './journal/journal-reader.js';
import { forEachLineSync } from './line-reader.js';
import { encodeRecordLine } from './record-line.js';

const SNAPSHOT_FORMAT = 'imgtask-snapshot';
/** 1: one JSON document, one record per line (still read). 2: a record line per line (written). */
const SNAPSHOT_VERSION = 2;
const V1_HEADER_END = ',"collections":{';

/** Receives the records of one collection (`load` asks for one per collection, in file order). */
export interface RecordSink {
  /** A parsed record (version 1). */
  record(record: unknown): void;
  /** A record line (`encodeRecordLine`) at `chunk[start, end)`, newline-terminated; the chunk is never reused. */
  line(chunk: Buffer, start: number, end: number): void;
}

export interface SnapshotData {
  /** Sequence number of the last journal record the snapshot includes. */
  seq: number;
  /** What `write` writes: per collection, records or record lines (`encodeRecordLine`). */
  collections: Record<string, Iterable<unknown>>;
  counts?: Record<string, number>;
  /**
   * Set by `read` instead of `collections`: streams the file's records into the state,
   * synchronously (nothing else runs at start-up), so start-up keeps no copy of them.
   * Records of a version 2 file arrive as record lines, of a version 1 file as objects.
   */
  load?: (collection: (name: string) => RecordSink) => void;
}

const RECORDS_PER_WRITE = 2000;
/** How long encoding runs before a write lets other work in: writes wait at most about this long for a snapshot. */
const SLICE_MS = 5;
/** Records encoded between two looks at the clock. */
const CLOCK_EVERY = 16;

/**
 * A lowdb adapter for the state snapshot. Version 2 layout, one line each, streamed both ways
 * (a million records never become one string, and writing yields between chunks):
 *
 *   {"format":"imgtask-snapshot","version":2,"seq":…,"createdAt":…,"counts":{…}}
 *   #"accounts"
 *   <record line>
 *   …
 *   #end
 *
 * A record line (`encodeRecordLine`) keeps the fields indexes read in a short first half, so
 * start-up parses only that and keeps the line itself until the record is read; the second half
 * is checked there only for its braces (a cut line), and parsed on first read. Like version 1,
 * the file stays plain text an operator can edit. Writes are atomic and durable (temp file,
 * fsync, rename, fsync dir).
 */
export class SnapshotFile implements Adapter<SnapshotData> {
  constructor(
    private readonly path: string,
    private readonly fs?: StorageFs,
  ) {}

  async read(): Promise<SnapshotData | null> {
    try {
      await access(this.path);
    } catch {
      return null;
    }
    return readSnapshot(this.path);
  }

  async write(data: SnapshotData): Promise<void> {
    await replaceFileDurably(
      this.path,
      dirname(this.path),
      async (handle) => {
        const counts: Record<string, number> = data.counts ?? {};
        const header = {
          format: SNAPSHOT_FORMAT,
          version: SNAPSHOT_VERSION,
          seq: data.seq,
          createdAt: new Date().toISOString(),
          counts,
        };
        let chunk = `${JSON.stringify(header)}\n`;
        for (const [name, records] of Object.entries(data.collections)) {
          chunk += `#${JSON.stringify(name)}\n`;
          let pending = 0;
          let sliceStart = performance.now();
          for (const record of records) {
            const line = typeof record === 'string' ? record : encodeRecordLine(record as object);
            chunk += `${line}\n`;
            pending += 1;
            // A write yields to the event loop: at most one slice of encoding runs between two.
            if (
              pending === RECORDS_PER_WRITE ||
              (pending % CLOCK_EVERY === 0 && performance.now() - sliceStart >= SLICE_MS)
            ) {
              await handle.write(chunk);
              chunk = '';
              pending = 0;
              sliceStart = performance.now();
            }
          }
        }
        await handle.write(`${chunk}#end\n`);
      },
      0o600,
      this.fs,
    );
  }
}

type Header = { format?: string; version?: number; seq?: number; counts?: Record<string, number> };

/** Checks the header now (so a bad file refuses before anything loads); the records stream in `load`. */
async function readSnapshot(path: string): Promise<SnapshotData> {
  const name = basename(path);
  const first = await firstLine(path);
  const isV1 = first.endsWith(V1_HEADER_END);
  let header: Header | null = null;
  try {
    header = JSON.parse(isV1 ? `${first.slice(0, -V1_HEADER_END.length)}}` : first);
  } catch {
    throw corruptAt(name, 1, isV1 ? 'unreadable header' : 'not a snapshot header');
  }
  if (header?.format !== SNAPSHOT_FORMAT || header.version !== (isV1 ? 1 : SNAPSHOT_VERSION))
    throw corruptAt(name, 1, 'unknown snapshot format');
  const counts = header.counts ?? {};
  return {
    seq: header.seq ?? 0,
    collections: {},
    counts,
    load: (collection) => (isV1 ? loadV1 : loadV2)(path, counts, collection),
  };
}

async function firstLine(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const nl = buffer.subarray(0, bytesRead).indexOf(10);
    return buffer.toString('utf8', 0, nl === -1 ? bytesRead : nl);
  } finally {
    await handle.close();
  }
}

const corruptAt = (name: string, line: number, why: string) =>
  new StoreCorruptError(`${name}: line ${line}: ${why}. Refusing to start; the file is left untouched.`);

/** Line bookkeeping shared by both versions: numbering, record counts, the end checks. */
function snapshotReader(path: string, counts: Record<string, number>) {
  const name = basename(path);
  const seen = new Map<string, number>();
  const reader = {
    lineNumber: 0,
    complete: false,
    corrupt: (why: string): never => {
      throw corruptAt(name, reader.lineNumber, why);
    },
    counted: (collection: string) => seen.set(collection, (seen.get(collection) ?? 0) + 1),
    opened: (collection: string) => seen.set(collection, seen.get(collection) ?? 0),
    run(onLine: (chunk: Buffer, start: number, end: number) => void): void {
      const tail = forEachLineSync(path, (chunk, start, end) => {
        reader.lineNumber += 1;
        if (reader.complete) reader.corrupt('data after the end of the snapshot');
        if (reader.lineNumber > 1) onLine(chunk, start, end);
      });
      if (tail.length) reader.corrupt('the snapshot ends without a newline');
      if (!reader.complete) reader.corrupt('the snapshot ends early');
      for (const [collection, count] of Object.entries(counts)) {
        if ((seen.get(collection) ?? 0) !== count)
          reader.corrupt(`collection ${collection} holds ${seen.get(collection) ?? 0} records, expected ${count}`);
      }
    },
  };
  return reader;
}

function loadV2(path: string, counts: Record<string, number>, collection: (name: string) => RecordSink): void {
  const reader = snapshotReader(path, counts);
  let sink: RecordSink | null = null;
  let current = '';
  reader.run((chunk, start, end) => {
    if (chunk[start] === HASH) {
      const marker = chunk.toString('utf8', start + 1, end);
      if (marker === 'end') {
        reader.complete = true;
        return;
      }
      try {
        current = JSON.parse(marker);
      } catch {
        reader.corrupt('expected a collection');
      }
      reader.opened(current);
      sink = collection(current);
      return;
    }
    if (sink === null) reader.corrupt('a record outside any collection');
    if (chunk[start] !== OPEN_BRACE || chunk[end - 1] !== CLOSE_BRACE) reader.corrupt('not a record line');
    try {
      sink!.line(chunk, start, end);
    } catch {
      reader.corrupt('unreadable record');
    }
    reader.counted(current);
  });
}

const HASH = 0x23;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Version 1: one JSON document, a record per line, each parsed whole. */
function loadV1(path: string, counts: Record<string, number>, collection: (name: string) => RecordSink): void {
  const reader = snapshotReader(path, counts);
  let sink: RecordSink | null = null;
  let current = '';
  reader.run((chunk, start, end) => {
    const line = chunk.toString('utf8', start, end);
    if (sink === null) {
      if (line === '}}') {
        reader.complete = true;
        return;
      }
      const open = /^("(?:[^"\\]|\\.)*"):\[$/.exec(line);
      if (!open) reader.corrupt('expected a collection');
      current = JSON.parse(open![1]);
      reader.opened(current);
      sink = collection(current);
      return;
    }
    if (line === ']' || line === '],') {
      sink = null;
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(line.startsWith(',') ? line.slice(1) : line);
    } catch {
      reader.corrupt('unreadable record');
    }
    sink.record(record);
    reader.counted(current);
  });
}
