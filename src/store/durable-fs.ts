import { type FileHandle, open, rename, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The file operations the store and the blob stores write through: Node's own in production.
 * Tests hand in a wrapper whose handles fail as a full disk does (ENOSPC), which is how the
 * refusal, rollback and resumption paths are exercised without filling a real disk. Reads do
 * not go through it.
 */
export interface StorageFs {
  open(path: string, flags: string, mode?: number): Promise<FileHandle>;
  /** Free space of the file system holding `path`: `bavail` blocks of `bsize` bytes for this user. */
  statfs(path: string): Promise<{ bsize: number; bavail: number }>;
}

export const nodeStorageFs: StorageFs = {
  open: (path, flags, mode) => open(path, flags, mode),
  statfs: (path) => statfs(path),
};

/**
 * fsync a directory so that a rename or unlink inside it survives a crash
 * (POSIX makes the name change durable only once the directory itself is synced).
 */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a whole buffer, looping over short writes. */
export async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/**
 * The suffix of every temp file a write leaves only if the process dies mid-write (the start-up sweep removes them).
 */
export const TEMP_SUFFIX = '.tmp';

/**
 * Replaces `path` atomically with what `fill` writes: temp file, fsync, rename, fsync dir.
 * A crash leaves either the old file or the new one, never a mix. A write that fails (a full
 * disk) removes its temp file: nothing half-written stays behind to fill the disk further.
 */
export async function replaceFileDurably(
  path: string,
  dir: string,
  fill: (handle: FileHandle) => Promise<void>,
  mode = 0o600,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  const temp = `${path}${TEMP_SUFFIX}`;
  try {
    const handle = await fs.open(temp, 'w', mode);
    try {
      await fill(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dir);
}

/** The scratch file `probeWrite` writes and removes. */
const PROBE_FILE = `space.probe${TEMP_SUFFIX}`;

/**
 * Whether a write of `bytes` fits in `dir` now: writes and syncs that much to a scratch file,
 * then removes it. Throws as the write would (ENOSPC, EDQUOT), which a free-space figure alone
 * would miss for a quota.
 */
export async function probeWrite(dir: string, bytes: number, fs: StorageFs = nodeStorageFs): Promise<void> {
  const path = join(dir, PROBE_FILE);
  try {
    const handle = await fs.open(path, 'w', 0o600);
    try {
      await writeAll(handle, Buffer.alloc(bytes));
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
