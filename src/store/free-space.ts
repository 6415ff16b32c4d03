import { dirname } from 'node:path';
import type { StorageFs } from './durable-fs.js';

/** Free space where one of the data dir's folders lives. */
export interface FreeSpace {
  /** What the folder holds: `store`, `images`, `videos`. */
  name: string;
  path: string;
  /** Bytes this process may still write there (statfs `bavail`: what is left for a user that is not root). */
  freeBytes: number;
}

/**
 * Reads the free space of the folders the service writes to (one statfs each, a few
 * microseconds): cheap enough to ask on every create and upload, so a disk that just filled is
 * seen by the next request. Callers asking while a reading is under way share it. A folder not
 * made yet is measured at its nearest existing parent.
 */
export function createFreeSpaceWatch(options: { fs: StorageFs; folders: { name: string; path: string }[] }) {
  let reading: Promise<FreeSpace[]> | null = null;

  async function measure(path: string): Promise<number> {
    for (let at = path; ; at = dirname(at)) {
      try {
        const { bsize, bavail } = await options.fs.statfs(at);
        return bsize * bavail;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw err;
      }
    }
  }

  return {
    read(): Promise<FreeSpace[]> {
      reading ??= Promise.all(
        options.folders.map(async ({ name, path }) => ({ name, path, freeBytes: await measure(path) })),
      ).finally(() => {
        reading = null;
      });
      return reading;
    },
  };
}
