import { rmSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environment } from '../config/environment.js';
import { isAlive } from '../store/file/lock.js';

/**
 * Which data dirs this user's `imgtask serve` processes run on, so that an operator command that
 * finds no data dir where it looked can say where the servers are. One file per server,
 * `<pid>.json`, in a folder of the user's own: `$XDG_RUNTIME_DIR/imgtask-servers`, else
 * `<os temp dir>/imgtask-servers-<uid>`. Written when `serve` listens, removed when its process
 * exits; an entry whose process is gone (killed) is stale and removed by the next reader.
 */

export interface RunningServer {
  pid: number;
  /** Absolute. */
  dataDir: string;
  url: string;
}

const folder = (): string => {
  const runtime = environment.runtimeDir();
  return runtime ? join(runtime, 'imgtask-servers') : join(tmpdir(), `imgtask-servers-${process.getuid?.() ?? 'user'}`);
};

/**
 * The folder, when it can be trusted: a real folder (not a link) owned by this user that no one
 * else may write. A shared temp dir lets anyone create the name first; such a folder is ignored.
 */
async function ownFolder(create: boolean): Promise<string | null> {
  const dir = folder();
  if (create) await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir).catch(() => null);
  if (!info?.isDirectory() || (info.mode & 0o022) !== 0) return null;
  const uid = process.getuid?.();
  return uid === undefined || info.uid === uid ? dir : null;
}

/**
 * Notes this process as a server on `dataDir` until it exits. Best effort: a registry that cannot
 * be written costs only the hint, never the server; answers whether it was written.
 */
export async function registerServer(entry: { dataDir: string; url: string }): Promise<boolean> {
  try {
    const dir = await ownFolder(true);
    if (!dir) return false;
    const file = join(dir, `${process.pid}.json`);
    const record: RunningServer = { pid: process.pid, dataDir: entry.dataDir, url: entry.url };
    // Written whole, then renamed into place, so a reader never sees half an entry.
    await writeFile(`${file}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    // 'exit' runs on every way out but a SIGKILL (which leaves a stale entry, found by its pid).
    process.once('exit', () => rmSync(file, { force: true }));
    return true;
  } catch {
    return false;
  }
}

const isEntry = (value: unknown): value is RunningServer => {
  const entry = value as RunningServer;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    Number.isSafeInteger(entry.pid) &&
    entry.pid > 0 &&
    typeof entry.dataDir === 'string' &&
    typeof entry.url === 'string'
  );
};

/** The servers running now, other than this process; stale entries are removed on the way. */
export async function runningServers(): Promise<RunningServer[]> {
  const dir = await ownFolder(false).catch(() => null);
  if (!dir) return [];
  const names = (await readdir(dir).catch(() => [])).filter((name) => /^\d+\.json$/.test(name));
  const found: RunningServer[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let entry: unknown;
    try {
      entry = JSON.parse(await readFile(path, 'utf8'));
    } catch {
      continue; // removed meanwhile, or not ours to judge
    }
    if (!isEntry(entry) || entry.pid === process.pid) continue;
    if (isAlive(entry.pid)) found.push({ pid: entry.pid, dataDir: entry.dataDir, url: entry.url });
    else await unlink(path).catch(() => undefined);
  }
  return found.sort((a, b) => a.pid - b.pid);
}
