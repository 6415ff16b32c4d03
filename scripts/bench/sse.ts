/**
 * Live status streams benchmark (not a test). Holds N (1,000) concurrent `GET /tasks/{id}/events`
 * streams against one imgtask server (the file store), one per task, and prints:
 *  - the server's memory per open stream (heap and RSS, measured after a GC, before and after);
 *  - the fan-out latency when the N tasks' first items finish at once (recorded through the task
 *    engine: journal write, event bus, one store read-free fan-out): from the moment the server
 *    starts recording them to each stream's event, p50/p99/max;
 *  - the same when they settle (the settled event; the streams then end);
 * beside an anchor measured in the same run: a bare hono server holding N streamSSE streams
 * and writing one event to each on a signal (what SSE over hono costs with no service at all).
 * Each server is its own child process; the streams are read by this process.
 *
 *   npm run bench:sse                (BENCH_STREAMS=1000)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { startChild, stopChild } from './fixtures/child.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SELF = import.meta.filename;

interface Memory {
  heapUsed: number;
  rss: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function memoryAfterGc(): Promise<Memory> {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

// ---------------------------------------------------------------- the anchor: bare hono SSE
async function anchorServer(): Promise<void> {
  const app = new Hono();
  const open = new Set<(data: string) => Promise<void>>();
  app.get('/s', (c) =>
    streamSSE(c, async (stream) => {
      const send = (data: string) => stream.writeSSE({ event: 'task', id: '1', data });
      open.add(send);
      await send(JSON.stringify({ status: 'pending' }));
      await new Promise<void>((resolve) => stream.onAbort(resolve));
      open.delete(send);
    }),
  );
  app.get('/bench/memory', async (c) => c.json(await memoryAfterGc()));
  app.post('/bench/fire', (c) => {
    const at = Date.now();
    for (const send of open) void send(JSON.stringify({ status: 'pending', at }));
    return c.json({ at, streams: open.size });
  });
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    process.stdout.write(`listening http://127.0.0.1:${info.port}\n`),
  );
}

// ---------------------------------------------------------------- imgtask, with tasks whose items the benchmark
// finishes
async function imgtaskServer(dataDir: string): Promise<void> {
  const [
    { startServer },
    { loadConfig },
    { addRoute },
    { CreatedTaskResponse },
    { createTaskHandler },
    { ProviderError },
  ] = await Promise.all([
    import('../../src/app/server.js'),
    import('../../src/config/load.js'),
    import('../../src/api/route.js'),
    import('../../src/api/routes/image/schemas.js'),
    import('../../src/api/task-create-handler.js'),
    import('../../src/domain/task-status.js'),
  ]);
  const HeldRequest = z.object({});
  // Two items each, run by no one: their runs wait until aborted; the benchmark records the items itself.
  const heldType = {
    type: 'bench.held',
    scope: 'image:generate' as const,
    body: () => HeldRequest,
    toRequest: (body: object) => body,
    itemCount: () => 2,
    itemCost: () => 100,
    lane: () => 'bench',
    maxAttempts: 1,
    runItem: ({ signal }: { signal: AbortSignal }) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new ProviderError('TIMEOUT', 'stopped'))),
      ),
    settle: () => ({ status: 'completed' as const, result: {} }),
  };
  const config = loadConfig({
    env: {},
    overrides: {
      server: { port: 0 },
      embedded: { preload: false },
      work: { lanes: { bench: 1 } },
      limits: { maxPendingTasks: 10_000_000, maxQueueDelaySeconds: null },
    },
  });
  const server = await startServer({
    dataDir,
    config,
    taskTypes: [heldType as never],
    log: () => undefined,
    extendApi: (app, deps) => {
      addRoute(
        app,
        deps,
        {
          method: 'post',
          path: '/bench/tasks',
          summary: 'bench',
          guard: { accept: ['apiKey'], scope: 'image:generate' },
          family: 'image',
          body: HeldRequest,
          status: 201,
          response: CreatedTaskResponse,
          internal: true,
        },
        createTaskHandler(deps, 'bench.held'),
      );
      app.get('/bench/memory', async (c) =>
        c.json({ ...(await memoryAfterGc()), streams: deps.taskStreams.stats().streams }),
      );
      // Records item `index` of every listed task as a success, all at once; answers when each task's event left the
      // bus.
      app.post('/bench/finish', async (c) => {
        const { ids, index } = (await c.req.json()) as { ids: string[]; index: number };
        emitted.clear();
        const at = Date.now();
        await Promise.all(
          ids.map((id) =>
            server.services.settlement.finishItem(id, index, { status: 'success', cost: 100, result: {} }),
          ),
        );
        return c.json({ at, recordedMs: Date.now() - at, emitted: Object.fromEntries(emitted) });
      });
    },
  });
  // When each task's change was emitted on the bus (durable by then): where the fan-out starts.
  const emitted = new Map<string, number>();
  server.services.events.on('task:item', ({ task }) => void emitted.set(task.id, Date.now()));
  server.services.events.on('task:settled', ({ task }) => void emitted.set(task.id, Date.now()));
  const account = await server.services.accounts.create('bench', 1_000_000 * 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id });
  process.stdout.write(`listening ${server.url} key ${raw}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

// ---------------------------------------------------------------- the driver

interface HeldStream {
  /** When each event arrived (Date.now()), in order. */
  arrivals: number[];
  ended: Promise<void>;
  close(): void;
}

const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** Opens one stream and notes when each event arrives; resolves once the first event is in. */
function hold(url: string, headers: Record<string, string>): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const arrivals: number[] = [];
    let done: () => void = () => undefined;
    const ended = new Promise<void>((r) => {
      done = r;
    });
    let buffer = '';
    const req = get(url, { headers, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!block.includes('data:')) continue;
          arrivals.push(Date.now());
          if (arrivals.length === 1) resolve({ arrivals, ended, close: () => req.destroy() });
        }
      });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', (err) => {
      done();
      reject(err);
    });
  });
}

async function holdAll(
  count: number,
  url: (i: number) => string,
  headers: Record<string, string>,
): Promise<HeldStream[]> {
  const out: HeldStream[] = [];
  for (let i = 0; i < count; i += 100)
    out.push(
      ...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, j) => hold(url(i + j), headers)))),
    );
  return out;
}

/**
 * Waits until every stream has `n` events (or the timeout), then the latencies from `at` (one instant, or one per
 * stream) to each one's n-th event.
 */
async function latencies(
  streams: HeldStream[],
  n: number,
  at: number | ((i: number) => number),
  timeoutMs = 60_000,
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (streams.some((s) => s.arrivals.length < n)) {
    if (Date.now() > deadline)
      throw new Error(`${streams.filter((s) => s.arrivals.length < n).length} stream(s) without event ${n}`);
    await sleep(5);
  }
  return streams.map((s, i) => s.arrivals[n - 1] - (typeof at === 'number' ? at : at(i))).sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const getJson = async <T>(url: string, init?: RequestInit): Promise<T> => (await (await fetch(url, init)).json()) as T;

async function drive(): Promise<void> {
  process.stderr.write(`anchor: bare hono streamSSE, ${STREAMS} streams…\n`);
  const anchor = await startChild(SELF, ['--anchor'], ['--expose-gc']);
  const anchorUrl = anchor.line.split(' ')[1];
  const anchorBefore = await getJson<Memory>(`${anchorUrl}/bench/memory`);
  const anchorStreams = await holdAll(STREAMS, () => `${anchorUrl}/s`, {});
  const anchorHeld = await getJson<Memory>(`${anchorUrl}/bench/memory`);
  const fired = await getJson<{ at: number; streams: number }>(`${anchorUrl}/bench/fire`, { method: 'POST' });
  if (fired.streams !== STREAMS) throw new Error(`the anchor holds ${fired.streams} streams`);
  const anchorFanout = await latencies(anchorStreams, 2, fired.at);
  for (const s of anchorStreams) s.close();
  await stopChild(anchor.child, 10_000);

  process.stderr.write(`imgtask: ${STREAMS} tasks, one stream each…\n`);
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-sse-'));
  const server = await startChild(SELF, ['--imgtask', data], ['--expose-gc']);
  const [, url, , key] = server.line.split(' ');
  const auth = { authorization: `Bearer ${key}` };
  const ids: string[] = [];
  for (let i = 0; i < STREAMS; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, STREAMS - i) }, () =>
        getJson<{ data: { taskId: string } }>(`${url}/bench/tasks`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    );
    ids.push(...batch.map((b) => b.data.taskId));
  }
  const before = await getJson<Memory>(`${url}/bench/memory`);
  const streams = await holdAll(STREAMS, (i) => `${url}/tasks/${ids[i]}/events`, auth);
  const held = await getJson<Memory & { streams: number }>(`${url}/bench/memory`);
  if (held.streams !== STREAMS) throw new Error(`imgtask holds ${held.streams} streams`);
  type Finished = { at: number; recordedMs: number; emitted: Record<string, number> };
  const items = await getJson<Finished>(`${url}/bench/finish`, {
    method: 'POST',
    body: JSON.stringify({ ids, index: 0 }),
  });
  const itemFanout = await latencies(streams, 2, items.at);
  const itemFromBus = await latencies(streams, 2, (i) => items.emitted[ids[i]]);
  const settles = await getJson<Finished>(`${url}/bench/finish`, {
    method: 'POST',
    body: JSON.stringify({ ids, index: 1 }),
  });
  const settleFanout = await latencies(streams, 3, settles.at);
  const settleFromBus = await latencies(streams, 3, (i) => settles.emitted[ids[i]]);
  await Promise.race([Promise.all(streams.map((s) => s.ended)), sleep(10_000)]);
  const stillOpen = (await getJson<{ streams: number }>(`${url}/bench/memory`)).streams;
  await stopChild(server.child, 10_000);
  await rm(data, { recursive: true, force: true });

  const perStream = (a: Memory, b: Memory) => ({
    heap: (b.heapUsed - a.heapUsed) / STREAMS,
    rss: (b.rss - a.rss) / STREAMS,
  });
  const mine = perStream(before, held);
  const bare = perStream(anchorBefore, anchorHeld);
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)} ×` : 'n/a');
  const row = (label: string, sorted: number[], anchorSorted: number[]) =>
    `| ${label} | ${pct(sorted, 0.5)} ms | ${pct(sorted, 0.99)} ms | ${sorted.at(-1)} ms | ${ratio(pct(sorted, 0.5) + 1, pct(anchorSorted, 0.5) + 1)} (p50+1 ms) |\n`;
  process.stdout.write(
    `Live status streams: ${STREAMS} concurrent streams held against one server (Node ${process.version}, file store, this machine)\n\n`,
  );
  process.stdout.write('| Memory per open stream (after GC) | heap | RSS |\n|---|---|---|\n');
  process.stdout.write(`| anchor: bare hono streamSSE | ${kb(bare.heap)} | ${kb(bare.rss)} |\n`);
  process.stdout.write(
    `| imgtask GET /tasks/{id}/events | ${kb(mine.heap)} (${ratio(mine.heap, bare.heap)}) | ${kb(mine.rss)} (${ratio(mine.rss, bare.rss)}) |\n\n`,
  );
  process.stdout.write(
    '| Fan-out: trigger → event at the client | p50 | p99 | max | × anchor |\n|---|---|---|---|---|\n',
  );
  process.stdout.write(row(`anchor: one write to each of ${STREAMS} streams`, anchorFanout, anchorFanout));
  process.stdout.write(
    row(
      `imgtask: ${STREAMS} tasks' first items recorded at once, from the trigger (recording took ${items.recordedMs} ms)`,
      itemFanout,
      anchorFanout,
    ),
  );
  process.stdout.write(
    row(`imgtask: the same, from each task's bus event (the fan-out alone)`, itemFromBus, anchorFanout),
  );
  process.stdout.write(
    row(
      `imgtask: ${STREAMS} tasks settled at once, from the trigger (settling took ${settles.recordedMs} ms)`,
      settleFanout,
      anchorFanout,
    ),
  );
  process.stdout.write(
    row(`imgtask: the same, from each task's bus event (the fan-out alone)`, settleFromBus, anchorFanout),
  );
  process.stdout.write(`\nStreams still open after the settled events: ${stillOpen}\n`);
}

if (process.argv[2] === '--anchor') await anchorServer();
else if (process.argv[2] === '--imgtask') await imgtaskServer(process.argv[3]);
else await drive();
