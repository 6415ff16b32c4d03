import { bytesText } from '../domain/bytes.js';
import { storageFull } from '../domain/storage-full.js';
import type { FreeSpace } from '../store/free-space.js';

export interface StorageReport {
  /** Free space of each folder the service writes to. */
  folders: FreeSpace[];
  /** store.minFreeBytes: below it, creates and uploads are refused. */
  minFreeBytes: number;
  /** What is short of space, one phrase per folder below the floor; empty when none is. */
  low: string[];
  /** Why the store refuses writes now (out of space, closed, a failed write); null while it takes them. */
  writesRefused: string | null;
}

/**
 * How long creates and uploads go on without reading free space again after a reading found at
 * least twice the floor in every folder: to pass below the floor meanwhile, a floor's worth (64
 * MiB by default) must be written within the second, and even then what is accepted is written
 * into the room the floor keeps (the journal's own full-disk handling holds every acknowledged
 * write). Below that margin every create reads (one statfs per folder, the reading shared by
 * those asking at once). /ready and doctor always read.
 */
const AMPLE_REUSE_MS = 1000;

/** Free space against store.minFreeBytes: refuses writes below it; reported by /ready and doctor. */
export interface SpaceGuard {
  /** Throws STORAGE_FULL while a folder is below the floor: new tasks and uploads wait for space. */
  admit(): Promise<void>;
  /** Why the service is short of space now (GET /ready), one phrase each; empty when it is not. */
  problems(): Promise<string[]>;
  /** Free space, the floor and the store's refusal, for `imgtask doctor`. */
  report(): Promise<StorageReport>;
}

/**
 * New work's gate on free space. Below `store.minFreeBytes` in any folder the service writes
 * to, creates and uploads are refused with 507 STORAGE_FULL (and Retry-After) while everything
 * else (items finishing, settlements, webhook attempts, cancels) goes on being written into the
 * room the floor keeps, so the journal itself seldom meets a full disk. `/ready` and `imgtask
 * doctor` report the same.
 */
export function createSpaceGuard(deps: {
  readings: () => Promise<FreeSpace[]>;
  minFreeBytes: () => number;
  writeFailure: () => string | null;
  /** Milliseconds, for how long a reading stays fresh (tests give their own). */
  now?: () => number;
}): SpaceGuard {
  const now = deps.now ?? (() => performance.now());
  /** Until when creates may go on without reading again: the last reading found twice the floor or more everywhere. */
  let ampleUntil = Number.NEGATIVE_INFINITY;

  /** One phrase per folder below the floor, naming it by what it holds (never its path). */
  async function low(): Promise<{ folders: FreeSpace[]; low: string[] }> {
    const floor = deps.minFreeBytes();
    const folders = await deps.readings();
    ampleUntil = folders.every((folder) => folder.freeBytes >= 2 * floor)
      ? now() + AMPLE_REUSE_MS
      : Number.NEGATIVE_INFINITY;
    const short = folders.filter((folder) => folder.freeBytes < floor);
    return {
      folders,
      low: short.map(
        (folder) =>
          `${bytesText(folder.freeBytes)} free for ${folder.name}, below store.minFreeBytes (${bytesText(floor)})`,
      ),
    };
  }

  return {
    /** Throws STORAGE_FULL while a folder is below the floor: new tasks and uploads wait for space. */
    async admit(): Promise<void> {
      if (deps.minFreeBytes() === 0 || now() < ampleUntil) return;
      const { low: short } = await low();
      if (short.length > 0)
        throw storageFull(
          'the server is low on storage space: new tasks and uploads are refused until space is freed; retry later',
        );
    },
    /** Why the service is short of space now (GET /ready), one phrase each; empty when it is not. */
    async problems(): Promise<string[]> {
      return (deps.minFreeBytes() === 0 ? [] : (await low()).low).map((phrase) => `storage: ${phrase}`);
    },
    /** Free space, the floor and the store's refusal, for `imgtask doctor`. */
    async report(): Promise<StorageReport> {
      const { folders, low: short } = await low();
      return { folders, minFreeBytes: deps.minFreeBytes(), low: short, writesRefused: deps.writeFailure() };
    },
  };
}
