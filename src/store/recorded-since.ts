import { readFile, writeFile } from 'node:fs/promises';
import type { BlobStore, ObjectStorage } from './blobs.js';

/** Where a storage keeps its mark: a small text file (local) or object (bucket) beside the blobs. */
export interface MarkFile {
  /** The mark's text; null when there is none. */
  read(): Promise<string | null>;
  /** Writes it unless one is there already (two first starts racing keep either: both are right). */
  create(text: string): Promise<void>;
}

/** The mark's name: in the data dir (local) or under the bucket's prefix, never inside images/ or videos/. */
export const MARK_NAME = 'blobs-recorded-since';

export const localMark = (path: string): MarkFile => ({
  read: () =>
    readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(err))),
  create: (text) =>
    writeFile(path, text, { flag: 'wx', mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    }),
});

export const objectMark = (objects: ObjectStorage, key: string): MarkFile => ({
  async read() {
    const opened = await objects.get(key);
    if (!opened) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  async create(text) {
    if ((await objects.head(key)) === null) await objects.put(key, Buffer.from(text), 'text/plain');
  },
});

async function isEmpty(stores: readonly BlobStore[]): Promise<boolean> {
  for (const store of stores) {
    for await (const _ of store.list()) return false;
  }
  return true;
}

/**
 * Since when (milliseconds) every blob the storage holds is recorded in the store: a task item's
 * `files` or an upload record. Blobs written before (uploads of an older version, which kept no
 * record of them) cannot be told from orphans, so doctor reports them apart and never removes
 * them. Read from the mark; the first process to find none writes it: 0 when the storage holds
 * nothing yet (a new install: every blob is recorded), else now.
 */
export async function recordedSince(mark: MarkFile, stores: readonly BlobStore[], now: number): Promise<number> {
  const marked = await mark.read();
  if (marked !== null) return markedTime(marked, now);
  const since = (await isEmpty(stores)) ? 0 : now;
  await mark.create(new Date(since).toISOString());
  // Another process may have written first: its mark is the one every process reads from now on.
  const written = await mark.read();
  return written === null ? since : markedTime(written, now);
}

/** A mark no one can read is taken as now: unreferenced blobs are then kept, never removed by mistake. */
function markedTime(text: string, now: number): number {
  const at = Date.parse(text.trim());
  return Number.isFinite(at) ? at : now;
}
