import { access, open, readdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { TEMP_SUFFIX } from '../../durable-fs.js';
import type { SnapshotData } from '../snapshot-file.js';
import type { State } from '../state.js';
import { StoreCorruptError } from './journal-reader.js';

/** The journaled store's files in its folder. */
export const storePaths = (dir: string) => ({
  journal: join(dir, 'journal.jsonl'),
  old: join(dir, 'journal.old.jsonl'),
  snapshot: join(dir, 'snapshot.json'),
  checkpoint: join(dir, 'journal.checkpoint'),
});

export const fileExists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

export async function truncateDurably(path: string, length: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Temp files of writes that never finished (a snapshot cut short by a full disk leaves none, a
 * killed process may). The checkpoint's is left: it may be under way now, and holds only a seq.
 */
export async function removeStrayTempFiles(dir: string): Promise<void> {
  const checkpointTemp = `${basename(storePaths(dir).checkpoint)}${TEMP_SUFFIX}`;
  for (const name of await readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX) && name !== checkpointTemp) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/** The state as a snapshot's content, as of `seq`. */
export function captureState(state: State, seq: number): SnapshotData {
  const collections: Record<string, Iterable<unknown>> = {};
  const counts: Record<string, number> = {};
  for (const collection of state.collections()) {
    // Records never read since start-up stay lines: written back without parsing them.
    const entries = collection.captureEntries();
    collections[collection.name] = entries;
    counts[collection.name] = entries.length;
  }
  return { seq, collections, counts };
}

/** Streams the snapshot's records straight into the empty state, through the indexes' bulk path. */
export function loadCollections(state: State, data: SnapshotData): void {
  const known = new Map(state.collections().map((collection) => [collection.name, collection]));
  const collectionNamed = (name: string) => {
    const collection = known.get(name);
    if (!collection) throw new StoreCorruptError(`snapshot.json: unknown collection "${name}". Refusing to start.`);
    return collection;
  };
  data.load?.((name) => {
    const collection = collectionNamed(name);
    return {
      record: (record) => collection.load(record as { id: string }),
      line: (chunk, start, end) => collection.loadLine(chunk, start, end),
    };
  });
  for (const [name, records] of Object.entries(data.collections)) {
    const collection = collectionNamed(name);
    for (const record of records) collection.load(record as { id: string });
  }
  for (const collection of known.values()) collection.loaded();
}
