/**
 * Store start-up and task listing at scale (not a test). Prints, each figure the median of
 * three fresh child processes, beside an anchor measured in the same run so that the ratio
 * survives a busy machine:
 *  - start-up time and RSS of the store with 100k and 1M stored tasks (about 700 bytes of
 *    JSON each), against the anchor "JSON.parse of every record of a JSONL file of the same
 *    records" (one line each, read in 1 MiB chunks, nothing kept);
 *  - `GET /tasks` (first page, newest first) over real HTTP on the real server, seeded with
 *    1k and then 1M tasks of one account: p50/p99 by autocannon, the server's largest
 *    event-loop delay while serving (monitorEventLoopDelay), and p99(1M) / p99(1k).
 *
 *   npm run bench:startup            (BENCH_SECONDS=10, BENCH_ROUNDS=3, BENCH_PARTS=startup,list)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { SnapshotFile } from '../../src/store/file/snapshot-file.js';
import type { AccountRecord, TaskRecord } from '../../src/store/records.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** `BENCH_PARTS=startup` or `=list` runs one part only. */
const PARTS = (process.env.BENCH_PARTS ?? 'startup,list').split(',');
const ACCOUNT = 'acc_bench';
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function taskRecord(n: number, accountId: string): TaskRecord {
  const id = `tsk_${n.toString(36).padStart(12, '0')}bench00000`;
  const at = new Date(Date.parse('2026-01-01') + n * 1000).toISOString();
  return {
    id,
    type: 'image.generate',
    status: 'completed',
    accountId,
    apiKeyId: `key_bench${n % 100}`,
    request: {
      prompt: 'a lighthouse on a cliff at dawn, oil painting',
      count: 1,
      model: 'placeholder',
      size: 'square',
      metadata: { order: `o-${n}` },
    },
    items: [{ status: 'success', cost: 1000, result: { id: `img_${n}`, size: '1024x1024' }, attempts: 1 }],
    estimate: 1000,
    cost: 1000,
    result: {
      model: 'placeholder',
      images: [
        {
          status: 'success',
          id: `img_${n}`,
          url: `http://127.0.0.1:8080/images/img_${n}.webp`,
          service_url: `http://127.0.0.1:8080/images/img_${n}.webp`,
          size: '1024x1024',
          cost: '0.001',
        },
      ],
    },
    eventId: 'none', // settled and handled: start-up has no webhook events to recover
    createdAt: at,
    updatedAt: at,
  };
}

/** `count` tasks spread over 100 accounts (as bench:tasks does), or all of one account. */
function* tasks(count: number, oneAccount: boolean) {
  for (let n = 0; n < count; n++) yield taskRecord(n, oneAccount ? ACCOUNT : `acc_bench${n % 100}`);
}

/** A store dir holding a snapshot written by the current code, the way a running server leaves it. */
async function seedStore(storeDir: string, count: number, oneAccount: boolean): Promise<void> {
  await mkdir(storeDir, { recursive: true });
  const at = '2026-01-01T00:00:00.000Z';
  const accounts: AccountRecord[] = oneAccount
    ? [{ id: ACCOUNT, name: 'bench', balance: 1_000_000 * 1_000_000, createdAt: at, updatedAt: at }]
    : [];
  await new SnapshotFile(join(storeDir, 'snapshot.json')).write({
    seq: 0,
    collections: { accounts, credits: [], apiKeys: [], tasks: tasks(count, oneAccount) },
    counts: { accounts: accounts.length, credits: 0, apiKeys: 0, tasks: count },
  });
}

/** The anchor's input: the same records as plain JSONL. */
async function writeJsonl(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  for (const record of tasks(count, false)) {
    if (!out.write(`${JSON.stringify(record)}\n`))
      await new Promise((resolve) => out.once('drain', () => resolve(undefined)));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Child: parse every line of a JSONL file, keeping nothing. Deliberately independent of src/. */
async function anchor(path: string) {
  const t0 = performance.now();
  const handle = await open(path, 'r');
  let carry = '';
  let records = 0;
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    const lines = (carry + buffer.toString('utf8', 0, bytesRead)).split('\n');
    carry = lines.pop()!;
    for (const line of lines) {
      JSON.parse(line);
      records++;
    }
  }
  await handle.close();
  return { ms: performance.now() - t0, records, rss: process.memoryUsage().rss };
}

/** Child: open the store, as `serve` does; RSS after a full GC, and the peak. */
async function startup(storeDir: string) {
  const { JsonStore } = await import('../../src/store/file/json-store.js');
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = await JsonStore.open({ dir: storeDir, snapshotOnClose: false });
  const ms = performance.now() - t0;
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const peak = process.resourceUsage().maxRSS * 1024;
  await store.close();
  return { ms, rss, peak, base };
}

/** Child: the real server on a seeded data dir, with a key for the account and an event-loop probe. */
async function serve(dataDir: string) {
  const { startServer } = await import('../../src/app/server.js');
  const { loadConfig } = await import('../../src/config/load.js');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const server = await startServer({
    dataDir,
    config: loadConfig({ env: {}, overrides: { server: { port: 0 } } }),
    extendApi: (app) => {
      app.post('/bench/delay/reset', (c) => {
        delay.reset();
        return c.json({});
      });
      app.get('/bench/delay', (c) =>
        c.json({ maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, rss: process.memoryUsage().rss }),
      );
    },
  });
  delay.enable();
  const { raw } = await server.services.apiKeys.create({ accountId: ACCOUNT });
  process.stdout.write(`listening ${server.url} key ${raw}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

function runChild(args: string[], nodeFlags: string[] = []): Record<string, number> {
  const child = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', import.meta.filename, ...args], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!);
}

async function listing(count: number) {
  const root = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  await seedStore(join(root, 'store'), count, true);
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'serve', root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const [, url, , key] = line.split(' ');
  const options = { url: `${url}/tasks?limit=20`, headers: { authorization: `Bearer ${key}` }, connections: 10 };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const rounds: { p50: number; p99: number; rps: number; maxDelay: number; non2xx: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await fetch(`${url}/bench/delay/reset`, { method: 'POST' });
    const result = await autocannon({ ...options, duration: DURATION });
    const delay = (await (await fetch(`${url}/bench/delay`)).json()) as { maxMs: number };
    rounds.push({
      p50: result.latency.p50,
      p99: result.latency.p99,
      rps: result.requests.average,
      maxDelay: delay.maxMs,
      non2xx: result.non2xx,
    });
  }
  await new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
  await rm(root, { recursive: true, force: true });
  return {
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rps: median(rounds.map((r) => r.rps)),
    maxDelay: Math.max(...rounds.map((r) => r.maxDelay)),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

async function main() {
  console.log(
    `start-up benchmark — node ${process.version}, ${cpus().length} cores; medians of ${ROUNDS}, fresh process each`,
  );
  if (PARTS.includes('startup')) await startupPart();
  if (PARTS.includes('list')) await listingPart();
}

async function startupPart() {
  console.log(
    '\nStart-up with stored tasks (about 700 bytes of JSON each); anchor = JSON.parse of each line of the same records as JSONL:',
  );
  for (const count of [100_000, 1_000_000]) {
    const root = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
    await seedStore(join(root, 'store'), count, false);
    await writeJsonl(join(root, 'anchor.jsonl'), count);
    const anchors: Record<string, number>[] = [];
    const starts: Record<string, number>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      anchors.push(runChild(['anchor', join(root, 'anchor.jsonl')]));
      starts.push(runChild(['startup', join(root, 'store')], ['--expose-gc', '--max-old-space-size=8192']));
    }
    await rm(root, { recursive: true, force: true });
    const anchorMs = median(anchors.map((a) => a.ms));
    const ms = median(starts.map((s) => s.ms));
    console.log(
      `${String(count).padStart(9)} tasks: start-up ${Math.round(ms)} ms (runs ${starts.map((s) => Math.round(s.ms)).join(', ')}), anchor ${Math.round(anchorMs)} ms, ratio ${(ms / anchorMs).toFixed(2)}; ` +
        `RSS ${mb(median(starts.map((s) => s.rss)))} after GC, peak ${mb(median(starts.map((s) => s.peak)))} (process before loading ${mb(median(starts.map((s) => s.base)))})`,
    );
  }
}

async function listingPart() {
  console.log(
    `\nGET /tasks?limit=20 (newest first, one account), real server in a child process, autocannon 10 connections, ${DURATION} s × ${ROUNDS}:`,
  );
  const figures: Record<number, Awaited<ReturnType<typeof listing>>> = {};
  for (const count of [1_000, 1_000_000]) {
    const r = await listing(count);
    figures[count] = r;
    console.log(
      `${String(count).padStart(9)} tasks: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max event-loop delay ${r.maxDelay.toFixed(1)} ms, non-2xx ${r.non2xx}`,
    );
  }
  console.log(`ratio p99(1M) / p99(1k): ${(figures[1_000_000].p99 / Math.max(figures[1_000].p99, 1)).toFixed(2)}`);
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'anchor') process.stdout.write(`${JSON.stringify(await anchor(arg))}\n`);
else if (mode === 'startup') process.stdout.write(`${JSON.stringify(await startup(arg))}\n`);
else if (mode === 'serve') await serve(arg);
else await main();
