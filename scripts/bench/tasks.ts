/**
 * Task engine benchmark (not a test). Prints:
 *  - creates per second over HTTP, each answered after its record is durable, against a bare
 *    hono hello-world on the same machine (the ratio says what the engine costs);
 *  - tasks completed per second end to end with a no-op handler, and p50/p99 create→completed;
 *  - start-up time and RSS with 100k and 1M stored tasks.
 *
 *   npm run bench:tasks
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { JsonStore } from '../../src/store/json-store.js';
import type { TaskRecord } from '../../src/store/records.js';
import { SnapshotFile } from '../../src/store/snapshot-file.js';

const SERVER = join(import.meta.dirname, 'fixtures/bench-server.ts');
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

function startChild(args: string[]): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, line: out.split('\n')[0] });
    });
    child.on('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });

type Stats = { completed: number; seconds: number; p50: number; p99: number; rss: number };

/** Waits until no more tasks complete (the backlog is worked off), then returns the server's stats. */
async function drained(url: string): Promise<Stats> {
  let last = -1;
  for (;;) {
    const stats = (await (await fetch(`${url}/bench/stats`)).json()) as Stats;
    if (stats.completed === last) return stats;
    last = stats.completed;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function cannon(options: autocannon.Options) {
  await autocannon({ ...options, duration: 2 }); // warm-up
  return autocannon(options);
}

async function httpBenchmarks() {
  const hello = await startChild(['--hello']);
  const helloUrl = hello.line.split(' ')[1];
  const bare = await cannon({ url: helloUrl, connections: 50, duration: DURATION });
  await stop(hello.child);

  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const server = await startChild([data]);
  const [, url, , key] = server.line.split(' ');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const create = (extra: Partial<autocannon.Options>) => cannon({ url: `${url}/bench/tasks`, method: 'POST', headers, body: '{}', connections: 50, duration: DURATION, ...extra });

  await fetch(`${url}/bench/reset`, { method: 'POST' });
  const creates = await create({});
  const saturated = await drained(url);
  await fetch(`${url}/bench/reset`, { method: 'POST' });
  const steady = await autocannon({ url: `${url}/bench/tasks`, method: 'POST', headers, body: '{}', connections: 10, duration: DURATION, overallRate: 500 });
  const stats = await drained(url);
  await stop(server.child);
  await rm(data, { recursive: true, force: true });

  console.log(`\nHTTP over loopback, 50 connections, ${DURATION} s (autocannon in this process, servers in child processes):`);
  console.log(`bare hono hello-world     ${Math.round(bare.requests.average).toString().padStart(7)} req/s  p50 ${bare.latency.p50} ms  p99 ${bare.latency.p99} ms`);
  console.log(
    `POST create (durable ack) ${Math.round(creates.requests.average).toString().padStart(7)} req/s  p50 ${creates.latency.p50} ms  p99 ${creates.latency.p99} ms  non-2xx ${creates.non2xx}`,
  );
  console.log(`ratio create / hello      ${(creates.requests.average / bare.requests.average).toFixed(3)}`);
  console.log(
    `tasks completed under that load: ${saturated.completed} in ${saturated.seconds.toFixed(1)} s = ${Math.round(saturated.completed / saturated.seconds)} tasks/s (create → completed p50 ${saturated.p50} ms, p99 ${saturated.p99} ms)`,
  );
  console.log(`\nEnd to end at a steady 500 creates/s with a no-op handler (create → completed, from settlement events):`);
  console.log(
    `completed ${stats.completed} tasks in ${stats.seconds.toFixed(1)} s = ${Math.round(stats.completed / stats.seconds)} tasks/s; p50 ${stats.p50} ms, p99 ${stats.p99} ms (ms resolution); server RSS ${mb(stats.rss)}; non-2xx ${steady.non2xx}`,
  );
}

function taskRecord(n: number): TaskRecord {
  const id = `tsk_${n.toString(36).padStart(12, '0')}bench00000`;
  const at = new Date(Date.parse('2026-01-01') + n * 1000).toISOString();
  return {
    id,
    type: 'image.generate',
    status: 'completed',
    accountId: `acc_bench${n % 100}`,
    apiKeyId: `key_bench${n % 100}`,
    request: { prompt: 'a lighthouse on a cliff at dawn, oil painting', count: 1, model: 'placeholder', size: 'square', metadata: { order: `o-${n}` } },
    items: [{ status: 'success', cost: 1000, result: { id: `img_${n}`, size: '1024x1024' }, attempts: 1 }],
    estimate: 1000,
    cost: 1000,
    result: {
      model: 'placeholder',
      images: [{ status: 'success', id: `img_${n}`, url: `http://127.0.0.1:8080/images/img_${n}.webp`, service_url: `http://127.0.0.1:8080/images/img_${n}.webp`, size: '1024x1024', cost: '0.001' }],
    },
    createdAt: at,
    updatedAt: at,
  };
}

async function storedTasks(count: number) {
  const dir = join(await mkdtemp(join(tmpdir(), 'imgtask-bench-')), 'store');
  await mkdir(dir, { recursive: true });
  function* tasks() {
    for (let n = 0; n < count; n++) yield taskRecord(n);
  }
  await new SnapshotFile(join(dir, 'snapshot.json')).write({
    seq: 0,
    collections: { accounts: [], credits: [], apiKeys: [], tasks: tasks() },
    counts: { accounts: 0, credits: 0, apiKeys: 0, tasks: count },
  });
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = await JsonStore.open({ dir, snapshotOnClose: false });
  const ms = performance.now() - t0;
  global.gc?.();
  const rss = process.memoryUsage().rss;
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return { ms, rss, base };
}

if (process.argv[2] === 'stored') {
  const result = await storedTasks(Number(process.argv[3]));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  console.log(`tasks benchmark — node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  await httpBenchmarks();
  console.log('\nStored tasks (each about 700 bytes of JSON), fresh process each:');
  for (const count of [100_000, 1_000_000]) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--max-old-space-size=8192', import.meta.filename, 'stored', String(count)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    console.log(`${String(count).padStart(9)} tasks: start-up ${Math.round(r.ms)} ms, RSS ${mb(r.rss)} (process before loading: ${mb(r.base)})`);
  }
}
