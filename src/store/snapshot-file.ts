import { access } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { replaceFileDurably } from './durable-fs.js';
import { StoreCorruptError } from './journal/journal-reader.js';
import { forEachLine } from './line-reader.js';

const SNAPSHOT_FORMAT = 'imgtask-snapshot';
const SNAPSHOT_VERSION = 1;

export interface SnapshotData {
  /** Sequence number of the last journal record the snapshot includes. */
  seq: number;
  collections: Record<string, Iterable<unknown>>;
  counts?: Record<string, number>;
}

const RECORDS_PER_WRITE = 2000;

/**
 * A lowdb adapter for the state snapshot. The file is one valid JSON document, laid out
 * one record per line so it can be written and read as a stream: a million records never
 * become one giant string (V8 caps strings near 512 MB), and writing yields to the event
 * loop between chunks. Writes are atomic and durable (temp file, fsync, rename, fsync dir).
 */
export class SnapshotFile implements Adapter<SnapshotData> {
  constructor(private readonly path: string) {}

  async read(): Promise<SnapshotData | null> {
    try {
      await access(this.path);
    } catch {
      return null;
    }
    return readSnapshot(this.path);
  }

  async write(data: SnapshotData): Promise<void> {
    await replaceFileDurably(this.path, dirname(this.path), async (handle) => {
      const names = Object.keys(data.collections);
      const counts: Record<string, number> = data.counts ?? {};
      const header = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, seq: data.seq, createdAt: new Date().toISOString(), counts };
      await handle.write(`${JSON.stringify(header).slice(0, -1)},"collections":{\n`);
      for (const [index, name] of names.entries()) {
        let chunk = `${JSON.stringify(name)}:[\n`;
        let pending = 0;
        let first = true;
        for (const record of data.collections[name]) {
          chunk += `${first ? '' : ','}${JSON.stringify(record)}\n`;
          first = false;
          if (++pending === RECORDS_PER_WRITE) {
            await handle.write(chunk);
            chunk = '';
            pending = 0;
          }
        }
        chunk += index === names.length - 1 ? ']\n' : '],\n';
        await handle.write(chunk);
      }
      await handle.write('}}\n');
    });
  }
}

async function readSnapshot(path: string): Promise<SnapshotData> {
  const name = basename(path);
  const collections: Record<string, unknown[]> = {};
  let header: { format?: string; version?: number; seq?: number; counts?: Record<string, number> } | null = null;
  let current: unknown[] | null = null;
  let lineNumber = 0;
  let complete = false;
  const corrupt = (why: string): never => {
    throw new StoreCorruptError(`${name}: line ${lineNumber}: ${why}. Refusing to start; the file is left untouched.`);
  };

  const onLine = (bytes: Buffer): void => {
    const line = bytes.toString('utf8');
    lineNumber += 1;
    if (complete) corrupt('data after the end of the snapshot');
    if (header === null) {
      if (!line.endsWith(',"collections":{')) corrupt('not a snapshot header');
      try {
        header = JSON.parse(`${line.slice(0, -',"collections":{'.length)}}`);
      } catch {
        corrupt('unreadable header');
      }
      if (header?.format !== SNAPSHOT_FORMAT || header.version !== SNAPSHOT_VERSION) corrupt('unknown snapshot format');
      return;
    }
    if (current === null) {
      if (line === '}}') {
        complete = true;
        return;
      }
      const open = /^("(?:[^"\\]|\\.)*"):\[$/.exec(line);
      if (!open) corrupt('expected a collection');
      current = collections[JSON.parse(open![1]) as string] = [];
      return;
    }
    if (line === ']' || line === '],') {
      current = null;
      return;
    }
    try {
      current.push(JSON.parse(line.startsWith(',') ? line.slice(1) : line));
    } catch {
      corrupt('unreadable record');
    }
  };
  const { tail } = await forEachLine(path, onLine);
  if (tail.length) corrupt('the snapshot ends without a newline');
  if (!header || !complete) corrupt('the snapshot ends early');
  for (const [collection, count] of Object.entries(header!.counts ?? {})) {
    if ((collections[collection]?.length ?? 0) !== count) corrupt(`collection ${collection} holds ${collections[collection]?.length ?? 0} records, expected ${count}`);
  }
  return { seq: header!.seq ?? 0, collections };
}
