import type { BlobStore, ListedBlob } from '../store/blobs.js';
import type { Store } from '../store/store-contract.js';

/** How many files, and their bytes. */
interface FileCount {
  files: number;
  bytes: number;
}

/** What `imgtask doctor` finds in the blob storage, and with `--fix` what it removed (docs/operations.md). */
export interface StorageInventory {
  /** The data dir (images/ and videos/ in it) or s3://bucket/prefix. */
  location: string;
  images: FileCount;
  /** Videos and their poster frames. */
  videos: FileCount;
  /**
   * Files nothing references (no task that still holds its data, no upload record): left by a crash
   * between storing a file and recording it, or by a removal that failed half-way. `removable`:
   * those older than an hour (what --fix removes); `examples`: a few of their names.
   */
  orphans: FileCount & { removable: number; examples: string[] };
  /**
   * Unreferenced files written before this storage recorded every file (an older version's uploads,
   * which it kept no record of): they cannot be told from orphans, so they are counted apart and
   * never removed. `before`: since when files are recorded.
   */
  unrecorded: FileCount & { before: string };
  /** With --fix: orphans removed, younger ones kept (a write may be under way), and those whose removal failed. */
  fixed?: { removed: number; removedBytes: number; keptYoung: number; failed: string[]; held?: string };
}

/** The blob storage as the inventory reads it (app/blob-storage.ts). */
export interface InventoryBlobs {
  images: BlobStore;
  videos: BlobStore;
  posters: BlobStore;
  location: string;
  recordedSince(now: number): Promise<number>;
}

/**
 * An orphan younger than this is kept by --fix: a file is stored before the record that points
 * at it, so a young unreferenced file may be a write under way.
 */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;
const EXAMPLES = 10;

/** Ids of the service's own files (`img_…`, `vid_…`) wherever they appear: names, service URLs, bare ids. */
const OWN_ID = /\b(?:img|vid)_[0-9A-Za-z]{22}\b/g;

/** A file's id: `img_X.png` → `img_X`; a video's poster `vid_X.poster.webp` → `vid_X`, so it belongs to its video. */
const idOf = (name: string): string => name.slice(0, name.indexOf('.'));

/**
 * The ids every live record points at: each task that still holds its data (its items' `files`,
 * and, for tasks stored before items recorded their files, the service URLs in its results; the
 * ids and URLs in its request too, so an older version's upload a task used is kept), and every
 * upload record. A task whose data is removed points at nothing.
 */
async function referencedIds(store: Pick<Store, 'tasks' | 'uploads'>): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const task of await store.tasks.all()) {
    if (task.dataRemovedAt !== undefined) continue;
    for (const item of task.items) for (const file of item.files ?? []) ids.add(idOf(file.name));
    for (const [id] of JSON.stringify([task.request, task.result, task.items.map((item) => item.result)]).matchAll(
      OWN_ID,
    ))
      ids.add(id);
  }
  for (const upload of await store.uploads.all()) if (upload.deletedAt === undefined) ids.add(idOf(upload.fileName));
  return ids;
}

export interface StorageInventoryService {
  /** Counts what the storage holds; `fix` also removes the orphans older than an hour. */
  take(options?: { fix?: boolean }): Promise<StorageInventory>;
}

interface Orphan {
  blobs: BlobStore;
  blob: ListedBlob;
}

/**
 * The blob storage's inventory (doctor): files and bytes of images and videos, and orphans. The
 * references are read before the listing, so a file stored meanwhile shows as a young orphan and
 * is kept. `now` is wall-clock time: files' ages come from the file system or the bucket.
 */
export function createStorageInventory(deps: {
  store: Pick<Store, 'tasks' | 'uploads'>;
  blobs: InventoryBlobs;
  /**
   * Why no orphan may be removed now (the store refuses writes, or space is short): items then
   * hold files already stored until their record can be written, and such a file, named by no
   * record yet, is no orphan however old. Null when nothing holds.
   */
  fixHeld?: () => Promise<string | null>;
  now?: () => number;
}): StorageInventoryService {
  const now = deps.now ?? Date.now;
  return {
    async take(options: { fix?: boolean } = {}): Promise<StorageInventory> {
      const since = await deps.blobs.recordedSince(now());
      const referenced = await referencedIds(deps.store);
      const counts = { images: { files: 0, bytes: 0 }, videos: { files: 0, bytes: 0 } };
      const unrecorded = { files: 0, bytes: 0 };
      const orphans: Orphan[] = [];
      const kinds = [
        ['images', deps.blobs.images],
        ['videos', deps.blobs.videos],
        ['videos', deps.blobs.posters],
      ] as const;
      for (const [kind, blobs] of kinds) {
        for await (const blob of blobs.list()) {
          counts[kind].files += 1;
          counts[kind].bytes += blob.bytes;
          if (referenced.has(idOf(blob.name))) continue;
          if (blob.modifiedAt.getTime() < since) {
            unrecorded.files += 1;
            unrecorded.bytes += blob.bytes;
          } else orphans.push({ blobs, blob });
        }
      }
      const at = now();
      const old = orphans.filter(({ blob }) => at - blob.modifiedAt.getTime() >= ORPHAN_GRACE_MS);
      const inventory: StorageInventory = {
        location: deps.blobs.location,
        ...counts,
        orphans: {
          files: orphans.length,
          bytes: orphans.reduce((sum, { blob }) => sum + blob.bytes, 0),
          removable: old.length,
          examples: orphans.slice(0, EXAMPLES).map(({ blob }) => blob.name),
        },
        unrecorded: { ...unrecorded, before: new Date(since).toISOString() },
      };
      if (options.fix) {
        const held = (await deps.fixHeld?.()) ?? null;
        inventory.fixed = held
          ? { removed: 0, removedBytes: 0, keptYoung: orphans.length - old.length, failed: [], held }
          : { ...(await remove(old)), keptYoung: orphans.length - old.length };
      }
      return inventory;
    },
  };
}

/** Removes orphans one at a time (a bucket's requests stay few); a removal that fails is named, the rest go on. */
async function remove(orphans: Orphan[]): Promise<{ removed: number; removedBytes: number; failed: string[] }> {
  const done = { removed: 0, removedBytes: 0, failed: [] as string[] };
  for (const { blobs, blob } of orphans) {
    try {
      await blobs.delete(blob.name);
      done.removed += 1;
      done.removedBytes += blob.bytes;
    } catch (err) {
      done.failed.push(`${blob.name}: ${(err as Error).message}`);
    }
  }
  return done;
}
