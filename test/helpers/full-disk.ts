import type { FileHandle } from 'node:fs/promises';
import { nodeStorageFs, type StorageFs } from '../../src/store/durable-fs.js';

/**
 * A StorageFs over the real one whose writes draw on a budget of bytes, as on a disk that is
 * filling: a write is cut short where the room ends and then fails with ENOSPC (what the
 * kernel does), so a batch can land partly. `room: null` (the default) is no limit; `room = 0`
 * is a full disk; setting it back to null is "space returns". statfs answers the room left.
 */
export interface FillableFs extends StorageFs {
  room: number | null;
  /** Writes refused so far. */
  refused: number;
}

const BLOCK = 4096;

export function fillableFs(): FillableFs {
  const disk: FillableFs = {
    room: null,
    refused: 0,
    open: async (path, flags, mode) => wrap(await nodeStorageFs.open(path, flags, mode), disk),
    statfs: async (path) =>
      disk.room === null ? nodeStorageFs.statfs(path) : { bsize: BLOCK, bavail: Math.floor(disk.room / BLOCK) },
  };
  return disk;
}

export function noSpace(syscall = 'write'): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), {
    code: 'ENOSPC',
    errno: -28,
    syscall,
  });
}

/** How much of `length` bytes fits; throws ENOSPC when nothing does. */
function take(disk: FillableFs, length: number): number {
  if (disk.room === null || length === 0) return length;
  if (disk.room === 0) {
    disk.refused += 1;
    throw noSpace();
  }
  const fits = Math.min(length, disk.room);
  disk.room -= fits;
  return fits;
}

function wrap(handle: FileHandle, disk: FillableFs): FileHandle {
  /** Writes all of `data` as far as the room goes, then fails as the kernel does. */
  const writeWhole = async (data: Buffer): Promise<void> => {
    let offset = 0;
    while (offset < data.length) {
      const fits = take(disk, data.length - offset);
      const { bytesWritten } = await handle.write(data, offset, fits);
      offset += bytesWritten;
    }
  };
  const overrides: Partial<Record<keyof FileHandle, unknown>> = {
    async write(data: Buffer | string, offset?: number, length?: number) {
      if (typeof data === 'string') {
        const bytes = Buffer.from(data);
        await writeWhole(bytes);
        return { bytesWritten: bytes.length, buffer: data };
      }
      const from = offset ?? 0;
      const fits = take(disk, length ?? data.length - from);
      return handle.write(data, from, fits);
    },
    async writeFile(data: Buffer | string) {
      await writeWhole(typeof data === 'string' ? Buffer.from(data) : data);
    },
  };
  return new Proxy(handle, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof FileHandle];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
