import { type FileHandle, open, rename } from 'node:fs/promises';

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
 * Replaces `path` atomically with what `fill` writes: temp file, fsync, rename, fsync dir.
 * A crash leaves either the old file or the new one, never a mix.
 */
export async function replaceFileDurably(path: string, dir: string, fill: (handle: FileHandle) => Promise<void>, mode = 0o600): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await fill(handle);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await fsyncDir(dir);
}
