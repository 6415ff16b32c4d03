import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * A fresh temporary folder, removed when the test ends. node:test runs `after` hooks in
 * the order they were added, so `beforeRemoval` (closing whatever uses the folder) is
 * chained here rather than added as a later hook.
 */
export async function tempDir(t: TestContext, prefix = 'imgtask-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(async () => {
    for (const close of closers.get(dir) ?? []) await close();
    closers.delete(dir);
    // Retries: a file a closing server still flushes can make one pass see the folder not yet empty (ENOTEMPTY).
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  return dir;
}

const closers = new Map<string, Array<() => Promise<unknown>>>();

/** Runs `close` when the test ends, before its temporary folder is removed. */
export function closeBeforeRemoval(dir: string, close: () => Promise<unknown>): void {
  const list = closers.get(dir) ?? [];
  list.unshift(close); // last opened, first closed
  closers.set(dir, list);
}
