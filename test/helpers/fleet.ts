import { type ChildProcess, spawn } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir } from './temp-dir.js';

/**
 * Processes of a fleet on one PostgreSQL database, for the fault tests: each a real child
 * running test/fixtures/fleet-process.ts (`serve`, `serve --no-work` or `worker`, with the test
 * task type), killed when the test ends. Each member prints the items it starts
 * (FLEET_ITEM_TRACE), so a test can tell which process ran which task.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/fleet-process.ts');

export interface Member {
  name: string;
  role: 'all' | 'api' | 'work';
  child: ChildProcess;
  /** The API's URL (roles all and api). */
  url: string;
  exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** `taskId:index:attempt` of every item it started, in order. */
  items(): string[];
  /** Calls `fn` with each item it starts from now on; answers how to stop. */
  onItem(fn: (item: string) => void): () => void;
}

/**
 * Starts one member on a data dir of its own holding a copy of `seedDir`'s keys (every process
 * of a fleet must seal and open with the same keys); resolves once it listens (or works).
 */
export async function startMember(
  t: TestContext,
  name: string,
  seedDir: string,
  role: Member['role'],
  overrides: object,
): Promise<Member> {
  const dataDir = await tempDir(t);
  await cp(join(seedDir, 'keys'), join(dataDir, 'keys'), { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, role, JSON.stringify(overrides)], {
      env: { ...process.env, FLEET_ITEM_TRACE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let out = '';
    let partial = '';
    let url = '';
    const items: string[] = [];
    const listeners = new Set<(item: string) => void>();
    const member: Member = {
      name,
      role,
      child,
      get url() {
        return url;
      },
      exited,
      output: () => out,
      items: () => items,
      onItem(fn) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    };
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const item = /^item (\S+)$/.exec(line);
        if (item) {
          items.push(item[1]);
          for (const fn of listeners) fn(item[1]);
          continue;
        }
        const listening = /^listening (http:\/\/\S+)/.exec(line);
        if (listening) url = listening[1];
        if (listening || /^working \S+/.test(line)) resolve(member);
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    exited.then((code) => reject(new Error(`${name} exited with ${code}: ${out}`)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `fn` until it answers a value: for state held by other processes (a task's status in
 * the database), which has no event to wait on here.
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
