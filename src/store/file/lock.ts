import { open, readFile, unlink } from 'node:fs/promises';

export class StoreLockedError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`the data dir is in use by process ${pid} (lock file ${path}); one writer per data dir`);
    this.name = 'StoreLockedError';
  }
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Reads the pid of a live holder of the lock, or null when the lock is free or stale. */
export async function lockHolder(path: string): Promise<number | null> {
  try {
    const pid = Number((await readFile(path, 'utf8')).trim());
    return Number.isSafeInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data dir's writer lock: a file created exclusively (O_EXCL) holding our pid.
 * A lock left by a dead process is taken over; one held by a live process (this one
 * included: a second store in one process is a second writer) is refused.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.write(`${process.pid}\n`);
      await handle.sync();
      await handle.close();
      return async () => {
        await unlink(path).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await lockHolder(path);
      if (holder !== null) throw new StoreLockedError(path, holder);
      await unlink(path).catch(() => undefined); // stale: its process is gone
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
