/**
 * Data removal beside live traffic (not a test), on the file store, each figure beside an anchor
 * measured in the same run on the same server:
 *  (a) a create burst (`POST /image/generate` of a model whose one image fails at once, 50
 *      connections) while the retention sweep removes the outputs of `--outputs` aged-out tasks
 *      (default 100,000: each an image file and its task's text), against the same burst just
 *      before the sweep: p99 with ÷ p99 without (target ≤ 2), the server's longest event-loop
 *      delay in each, and how long the whole sweep took;
 *  (b) an account erase (`--victim` tasks with their files) on the store the sweep left, ending in
 *      the file store's compaction, while 4 clients create back to back: the longest create that
 *      overlapped compact() (target < 100 ms), beside the longest create before the erase, and
 *      the server's longest event-loop delay during compact().
 * The store is seeded as a snapshot (tasks settled two days ago, `eventId` none) with the files
 * written beside it; the server runs the default config with retention off until the sweep is
 * asked for (`retention.outputs: 1d`, applied as a config reload applies it).
 *
 *   npm run bench:retention [-- --outputs 100000 --victim 2000]     BENCH_SECONDS=10 (each burst)
 *                           BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (node flags of the server)
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { randomId } from '../../src/domain/ids.js';
import { SnapshotFile } from '../../src/store/file/snapshot-file.js';
import type { AccountRecord, TaskRecord } from '../../src/store/records.js';
import { BENCH_NODE_ARGS } from './fixtures/child.js';
import { noopModelOverrides } from './fixtures/noop-model.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const CREATE_LOOPS = 4;
const FILE_BYTES = 1024;
const DAY_MS = 86_400_000;
const ACCOUNTS = {
  bench: 'acc_benchcreates0000000',
  old: 'acc_benchretention00000',
  victim: 'acc_benchvictim00000000',
};

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at > 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`--${name}: a whole number, not ${process.argv[at + 1]}`);
  return value;
}

/** A settled image.generate task holding one stored image (its item's files, its result's service URL). */
function taskRecord(accountId: string, at: string, file: string): TaskRecord {
  const url = `http://127.0.0.1:8080/images/${file}`;
  const id = file.slice(0, file.indexOf('.'));
  return {
    id: randomId('tsk'),
    type: 'image.generate',
    status: 'completed',
    accountId,
    apiKeyId: null,
    request: {
      prompt: 'a lighthouse on a cliff at dawn, oil painting',
      count: 1,
      model: 'placeholder',
      metadata: { order: 'o-1' },
    },
    items: [
      {
        status: 'success',
        cost: 0,
        attempts: 1,
        result: { status: 'success', id, url, service_url: url, size: '64x64', cost: '0' },
        files: [{ name: file, bytes: FILE_BYTES }],
      },
    ],
    estimate: 0,
    cost: 0,
    result: {
      model: 'placeholder',
      images: [{ status: 'success', id, url, service_url: url, size: '64x64', cost: '0' }],
    },
    eventId: 'none', // settled and handled: no webhook event to recover at start
    createdAt: at,
    updatedAt: at,
  };
}

/** A data dir with `outputs` tasks settled two days ago and `victim` settled a minute ago, each with its image file. */
async function seed(root: string, outputs: number, victim: number): Promise<void> {
  const now = Date.now();
  const old = new Date(now - 2 * DAY_MS).toISOString();
  const recent = new Date(now - 60_000).toISOString();
  const account = (id: string, name: string): AccountRecord => ({
    id,
    name,
    balance: 1_000_000 * 1_000_000,
    createdAt: old,
    updatedAt: old,
  });
  const tasks: TaskRecord[] = [];
  const files: string[] = [];
  for (let n = 0; n < outputs + victim; n++) {
    const file = `${randomId('img')}.png`;
    files.push(file);
    tasks.push(taskRecord(n < outputs ? ACCOUNTS.old : ACCOUNTS.victim, n < outputs ? old : recent, file));
  }
  await mkdir(join(root, 'store'), { recursive: true });
  const accounts = [account(ACCOUNTS.bench, 'bench'), account(ACCOUNTS.old, 'old'), account(ACCOUNTS.victim, 'victim')];
  await new SnapshotFile(join(root, 'store', 'snapshot.json')).write({
    seq: 0,
    collections: { accounts, credits: [], apiKeys: [], tasks },
    counts: { accounts: accounts.length, credits: 0, apiKeys: 0, tasks: tasks.length },
  });
  const body = Buffer.alloc(FILE_BYTES, 7);
  const shards = new Set(files.map((file) => file.slice(4, 6)));
  for (const shard of shards) await mkdir(join(root, 'images', shard), { recursive: true });
  for (let i = 0; i < files.length; i += 256) {
    await Promise.all(
      files.slice(i, i + 256).map((file) => writeFile(join(root, 'images', file.slice(4, 6), file), body)),
    );
  }
}

/** Child: the real server on the seeded data dir, with the hooks the benchmark reads. */
async function serve(dataDir: string) {
  const { startServer } = await import('../../src/app/server.js');
  const { loadConfig } = await import('../../src/config/load.js');
  const config = loadConfig({
    env: {},
    overrides: {
      server: { port: 0 },
      embedded: { preload: false },
      ...noopModelOverrides,
      limits: { maxPendingTasks: 10_000_000, maxQueueDelaySeconds: null },
      // The sweep at start finds nothing to remove (retention off); this one runs when asked.
      work: { sweepIntervalMs: 24 * 3_600_000 },
    },
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let sweep: { startedAt: number; endedAt?: number; removed?: number; error?: string } | undefined;
  let erase:
    | {
        startedAt: number;
        beforeMaxDelayMs: number;
        compactFrom?: number;
        compactTo?: number;
        compactMaxDelayMs?: number;
        endedAt?: number;
        tasks?: number;
        error?: string;
      }
    | undefined;
  const server = await startServer({
    dataDir,
    config,
    extendApi: (app) => {
      app.post('/bench/delay/reset', (c) => {
        delay.reset();
        return c.json({});
      });
      app.get('/bench/delay', (c) => c.json({ maxMs: delay.max / 1e6 }));
      app.post('/bench/sweep', async (c) => {
        const current = services.config.current();
        await services.reload({ ...current, retention: { ...current.retention, outputs: '1d' } });
        const run = { startedAt: Date.now() } as NonNullable<typeof sweep>;
        sweep = run;
        services.retention.sweep().then(
          (counts) => Object.assign(run, { endedAt: Date.now(), removed: counts.outputs }),
          (err: Error) => Object.assign(run, { endedAt: Date.now(), error: err.message }),
        );
        return c.json({});
      });
      app.get('/bench/sweep', (c) => c.json(sweep ?? null));
      app.post('/bench/erase', async (c) => {
        // The loop's longest delay since the creates began (the client reset it then): the anchor.
        const run: NonNullable<typeof erase> = { startedAt: Date.now(), beforeMaxDelayMs: delay.max / 1e6 };
        erase = run;
        services.accountErase.erase(ACCOUNTS.victim).then(
          (report) => Object.assign(run, { endedAt: Date.now(), tasks: report.tasks }),
          (err: Error) => Object.assign(run, { endedAt: Date.now(), error: err.message }),
        );
        return c.json({});
      });
      app.get('/bench/erase', (c) => c.json(erase ?? null));
    },
  });
  const { services } = server;
  // The compaction's own window, timed where the erase calls it (the store's method, wrapped).
  const store = services.store as { compact?: () => Promise<void> };
  const compact = store.compact!.bind(store);
  store.compact = async () => {
    if (erase) erase.compactFrom = Date.now();
    delay.reset();
    await compact();
    if (erase) Object.assign(erase, { compactTo: Date.now(), compactMaxDelayMs: delay.max / 1e6 });
  };
  delay.enable();
  const { raw } = await services.apiKeys.create({ accountId: ACCOUNTS.bench });
  process.stdout.write(`listening ${server.url} key ${raw}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

function startServe(root: string): Promise<{ url: string; key: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...BENCH_NODE_ARGS, '--import', 'tsx', import.meta.filename, 'serve', root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      const [, url, , key] = out.split('\n')[0].split(' ');
      const stop = () =>
        new Promise<void>((done) => {
          child.removeAllListeners('exit');
          child.on('exit', () => done());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
        });
      resolve({ url, key, stop });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

const began = performance.now();
const progress = (line: string) =>
  process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);
const get = async <T>(url: string): Promise<T> => (await (await fetch(url)).json()) as T;
const post = (url: string) => fetch(url, { method: 'POST' }).then((res) => res.text());
const until = async (check: () => Promise<boolean>) => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 250));
};

interface Burst {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  maxDelayMs: number;
}

async function burst(url: string, key: string, warm = false): Promise<Burst> {
  const options = {
    url: `${url}/image/generate`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model: 'noop' }),
    connections: CONNECTIONS,
  };
  // A fresh server's first seconds (JIT, the records read lazily on first use) are not what is compared.
  if (warm) await autocannon({ ...options, duration: 5 });
  await post(`${url}/bench/delay/reset`);
  const result = await autocannon({ ...options, duration: DURATION });
  const { maxMs } = await get<{ maxMs: number }>(`${url}/bench/delay`);
  return {
    perSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    maxDelayMs: maxMs,
  };
}

/**
 * `loops` clients creating back to back until `stop` resolves; answers each create's start and end (ms since the
 * epoch).
 */
async function createLoops(
  url: string,
  key: string,
  loops: number,
  stop: Promise<void>,
): Promise<{ from: number; to: number; ok: boolean }[]> {
  const done: { from: number; to: number; ok: boolean }[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  const body = JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model: 'noop' });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (!stopped) {
        const from = Date.now();
        const res = await fetch(`${url}/image/generate`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        done.push({ from, to: Date.now(), ok: res.status === 201 });
      }
    }),
  );
  return done;
}

async function main() {
  const outputs = flag('outputs', 100_000);
  const victim = flag('victim', 2000);
  console.log(
    `retention benchmark — node ${process.version}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${outputs.toLocaleString('en-US')} outputs to sweep, ${victim.toLocaleString('en-US')} tasks erased; ${CONNECTIONS} connections, ${DURATION} s per burst`,
  );
  const root = await mkdtemp(join(tmpdir(), 'imgtask-bench-retention-'));
  try {
    progress(`seeding ${outputs + victim} tasks and their files`);
    await seed(root, outputs, victim);
    progress('starting the server');
    const server = await startServe(root);

    progress('burst without the sweep');
    const before = await burst(server.url, server.key, true);
    progress('burst beside the sweep');
    await post(`${server.url}/bench/sweep`);
    const beside = await burst(server.url, server.key);
    const atBurstEnd = await get<{ startedAt: number; endedAt?: number; removed?: number }>(
      `${server.url}/bench/sweep`,
    );
    progress('waiting for the sweep to finish');
    await until(async () => (await get<{ endedAt?: number }>(`${server.url}/bench/sweep`)).endedAt !== undefined);
    const swept = await get<{ startedAt: number; endedAt: number; removed?: number; error?: string }>(
      `${server.url}/bench/sweep`,
    );
    if (swept.error) throw new Error(`the sweep failed: ${swept.error}`);
    progress('burst after the sweep');
    const after = await burst(server.url, server.key);

    progress('creates beside an erase and its compaction');
    let stopLoops = () => {};
    await post(`${server.url}/bench/delay/reset`);
    const loops = createLoops(
      server.url,
      server.key,
      CREATE_LOOPS,
      new Promise<void>((resolve) => (stopLoops = resolve)),
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await post(`${server.url}/bench/erase`);
    await until(async () => (await get<{ endedAt?: number }>(`${server.url}/bench/erase`)).endedAt !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    stopLoops();
    const creates = await loops;
    const erased = await get<{
      startedAt: number;
      endedAt: number;
      beforeMaxDelayMs: number;
      compactFrom: number;
      compactTo: number;
      compactMaxDelayMs: number;
      tasks: number;
      error?: string;
    }>(`${server.url}/bench/erase`);
    if (erased.error) throw new Error(`the erase failed: ${erased.error}`);
    await server.stop();

    const longest = (list: { from: number; to: number }[]) => Math.max(0, ...list.map((c) => c.to - c.from));
    const p99 = (list: { from: number; to: number }[]) =>
      list.map((c) => c.to - c.from).sort((a, b) => a - b)[Math.floor(0.99 * (list.length - 1))] ?? 0;
    const beforeErase = creates.filter((c) => c.to < erased.startedAt);
    const duringCompact = creates.filter((c) => c.from < erased.compactTo && c.to > erased.compactFrom);
    const failed = creates.filter((c) => !c.ok).length;

    const sweepSeconds = (swept.endedAt - swept.startedAt) / 1000;
    const int = (n: number) => Math.round(n).toLocaleString('en-US');
    // The burst after the sweep is a second anchor: the lower p99 of the two is what the sweep's burst is held to.
    const anchorP99 = Math.min(before.p99, after.p99);
    const row = (label: string, b: Burst) =>
      `| ${label} | ${int(b.perSecond)} | ${b.p50} / ${b.p99} | ${(b.p99 / anchorP99).toFixed(2)} | ${Math.round(b.maxDelayMs)} | ${b.non2xx} |`;
    console.log(
      `\n(a) the retention sweep removed ${int(swept.removed ?? 0)} outputs in ${sweepSeconds.toFixed(1)} s (${int((swept.removed ?? 0) / sweepSeconds)}/s)`,
    );
    console.log(
      `    at the end of the burst beside it, the sweep was ${atBurstEnd.endedAt === undefined ? 'still running' : 'already done'}`,
    );
    console.log(
      '\n| creates (POST /image/generate) | req/s | p50 / p99 ms | p99 ÷ the lower anchor p99 | longest event-loop delay ms | non-2xx |',
    );
    console.log('|---|---|---|---|---|---|');
    console.log(row('before the sweep (anchor)', before));
    console.log(row('beside the sweep', beside));
    console.log(row('after the sweep (anchor)', after));
    const compactMs = erased.compactTo - erased.compactFrom;
    console.log(
      `\n(b) the erase scrubbed ${int(erased.tasks)} tasks in ${((erased.endedAt - erased.startedAt) / 1000).toFixed(1)} s; compact() took ${int(compactMs)} ms`,
    );
    console.log(`    ${CREATE_LOOPS} clients creating back to back: ${int(creates.length)} creates, ${failed} failed`);
    console.log(
      `    before the erase (anchor, ${beforeErase.length} creates): longest ${longest(beforeErase)} ms, p99 ${p99(beforeErase)} ms, longest event-loop delay ${Math.round(erased.beforeMaxDelayMs)} ms`,
    );
    console.log(
      `    overlapping compact() (${duringCompact.length} creates): longest ${longest(duringCompact)} ms, p99 ${p99(duringCompact)} ms, longest event-loop delay ${Math.round(erased.compactMaxDelayMs)} ms`,
    );

    const ratio = beside.p99 / anchorP99;
    const targets = [
      { what: 'creates p99 beside the sweep ÷ the lower anchor p99 ≤ 2', value: ratio, met: ratio <= 2 },
      {
        what: 'longest create overlapping the compaction < 100 ms',
        value: longest(duringCompact),
        met: longest(duringCompact) < 100,
      },
    ];
    console.log('\nTargets (this run)');
    for (const target of targets)
      console.log(`  ${target.met ? 'met    ' : 'not met'}  ${target.value.toFixed(2)}  ${target.what}`);
    console.log(`\n(${Math.round((performance.now() - began) / 1000)} s in all)`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else {
  await main();
  process.exit(0);
}
