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
 * New work's gate on free space. Below `store.minFreeBytes` in any folder the service writes
 * to, creates and uploads are refused with 507 STORAGE_FULL (and Retry-After) while everything
 * else (items finishing, settlements, webhook attempts, cancels) goes on being written into the
 * room the floor keeps, so the journal itself seldom meets a full disk. `/ready` and `imgtask
 * doctor` report the same.
 */
export function createSpaceGuard(deps: { readings: () => Promise<FreeSpace[]>; minFreeBytes: () => number; writeFailure: () => string | null }) {
  /** One phrase per folder below the floor, naming it by what it holds (never its path). */
  async function low(): Promise<{ folders: FreeSpace[]; low: string[] }> {
    const floor = deps.minFreeBytes();
    const folders = await deps.readings();
    const short = folders.filter((folder) => folder.freeBytes < floor);
    return { folders, low: short.map((folder) => `${bytesText(folder.freeBytes)} free for ${folder.name}, below store.minFreeBytes (${bytesText(floor)})`) };
  }

  return {
    /** Throws STORAGE_FULL while a folder is below the floor: new tasks and uploads wait for space. */
    async admit(): Promise<void> {
      if (deps.minFreeBytes() === 0) return;
      const { low: short } = await low();
      if (short.length > 0) throw storageFull('the server is low on storage space: new tasks and uploads are refused until space is freed; retry later');
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

export type SpaceGuard = ReturnType<typeof createSpaceGuard>;
