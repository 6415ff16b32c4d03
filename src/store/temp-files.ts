import { opendir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_SUFFIX } from './durable-fs.js';

/**
 * Removes the temp files (`*.tmp`) of writes that never finished (a process killed mid-write,
 * or a failed write from before failures removed their own) last changed at least `olderThanMs`
 * ago, in `dir` and its sub-folders down to `depth`. A younger one may be a write under way in
 * another process sharing the folder, so it stays. Answers how many went; a missing `dir` is none.
 */
export async function removeTempFiles(dir: string, olderThanMs: number, depth = 0, now = Date.now()): Promise<number> {
  let folder: Awaited<ReturnType<typeof opendir>>;
  try {
    folder = await opendir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  // Iterated, not listed: a folder of a million images is never held as one array.
  for await (const entry of folder) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth > 0) removed += await removeTempFiles(path, olderThanMs, depth - 1, now);
      continue;
    }
    if (!entry.isFile() || !entry.name.endsWith(TEMP_SUFFIX)) continue;
    const info = await stat(path).catch(() => null);
    if (!info || now - info.mtimeMs < olderThanMs) continue;
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed += 1;
  }
  return removed;
}
