import { resolve } from 'node:path';
import { isDataDir } from '../app/data-dir.js';
import { type RunningServer, runningServers } from '../app/server-registry.js';
import { UsageError } from './output.js';

/**
 * What an operator command does with its data dir: work on one that is there ('existing': every
 * read, and every write that needs records already made), or start one when there is none
 * ('create': `accounts create`, `secrets set`, `store import`). Opening the store creates a data
 * dir, so without this a command run from another folder quietly made an empty one.
 */
export type DataDirUse = 'existing' | 'create';

const POINT = 'with --data DIR or IMGTASK_DATA=DIR';

/**
 * "a server is running on …" for this user's servers on other data dirs (the registry `serve` writes); '' when none.
 */
export async function serversElsewhere(root: string): Promise<string> {
  const others = (await runningServers()).filter((server) => server.dataDir !== root);
  const one = (s: RunningServer) => `${s.dataDir} (pid ${s.pid}, ${s.url})`;
  if (others.length === 0) return '';
  if (others.length === 1)
    return `; a server is running on another data dir: ${one(others[0])}, reached with imgtask --data ${others[0].dataDir} …`;
  return `; servers are running on other data dirs: ${others.map(one).join(', ')}`;
}

/**
 * Runs `run` on the context's data dir as `use` allows. With no data dir there, 'existing' fails
 * with DATA_DIR_NOT_FOUND (exit 2, nothing created) naming the path looked at; 'create' runs and
 * then says on stderr that it created one, and where. Both name running servers on other data dirs.
 */
export async function onDataDir<T>(data: string, use: DataDirUse, run: () => Promise<T>): Promise<T> {
  const root = resolve(data);
  if (await isDataDir(root)) return run();
  if (use === 'existing')
    throw new UsageError(
      `no data dir at ${root}: name the right one ${POINT}${await serversElsewhere(root)}`,
      'DATA_DIR_NOT_FOUND',
    );
  try {
    return await run();
  } finally {
    if (await isDataDir(root).catch(() => false))
      process.stderr.write(
        `imgtask: created a new data dir at ${root}; to work on another, name it ${POINT}${await serversElsewhere(root)}\n`,
      );
  }
}
