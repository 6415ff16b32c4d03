/**
 * Task engine benchmark (not a test): the create and settle path on the file store, each figure
 * beside its anchor measured in the same run, as a ratio. Anchors:
 *  - a bare hono hello-world;
 *  - the bare *durable* create (fixtures/bare-create.ts): hono, the same zod schema, a key hash
 *    lookup, a balance check, a task id, one JSON line appended with group-commit fdatasync (201
 *    after the sync) and an HS256 token: what a create must do, and nothing else.
 * imgtask (fixtures/bench-server.ts, the default config, logging at info as installed):
 *  - `POST /image/generate` of a model whose one image fails at once: creates/s, p50/p99 (the
 *    items run, settle and release beside the creates);
 *  - the same burst's no-op tasks end to end: its creates ÷ the time until the last one settled;
 *  - `POST /image/generate` with the placeholder model drawing its images beside the creates;
 *  - no-op creates with 0, 10,000 and 100,000 tasks already queued behind a paused lane.
 * Then the targets, met or not. Start-up and listing at 1M stored tasks: scripts/bench/startup.ts.
 *
 *   npm run bench:tasks     BENCH_SECONDS=6 (each burst, after a 2 s warm-up)
 *                           BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (node flags of the servers)
 *                           BENCH_BACKLOG=0,10000 (the backlog rows; none: BENCH_BACKLOG=)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_NODE_ARGS, startChild, stopChild } from './fixtures/child.js';

const SERVER = join(import.meta.dirname, 'fixtures/bench-server.ts');
const BARE = join(import.meta.dirname, 'fixtures/bare-create.ts');
const DURATION = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 50;
const BACKLOGS = (process.env.BENCH_BACKLOG ?? '0,10000,100000').split(',').filter(Boolean).map(Number);
const GENERATE = (model: string) => JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model });

interface Figure {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const began = performance.now();
const progress = (line: string) =>
  process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);

/** A 2-second warm-up, then `DURATION` seconds of `options` at 50 connections. */
async function cannon(options: autocannon.Options, warm = true): Promise<Figure & { startedAt: number }> {
  if (warm) await autocannon({ connections: CONNECTIONS, ...options, duration: 2 });
  const startedAt = Date.now();
  const result = await autocannon({ connections: CONNECTIONS, ...options, duration: DURATION });
  return {
    perSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    startedAt,
  };
}

/** A server in a fresh data dir; answers its URL, key, and how to stop it (and remove the dir). */
async function server(script: string, args: string[] = []) {
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const { child, line } = await startChild(script, [data, ...args], BENCH_NODE_ARGS);
  const url = line.split(' ')[1];
  const key = line.split(' ')[3];
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return {
    url,
    headers,
    async stop(kill = false) {
      if (kill) {
        child.removeAllListeners('exit');
        child.kill('SIGKILL');
      } else await stopChild(child, 30_000);
      await rm(data, { recursive: true, force: true });
    },
  };
}

type Stats = { completed: number; lastAt: number };
/** Waits until no more tasks settle; answers the server's settlement stats. */
async function drained(url: string): Promise<Stats> {
  let last = -1;
  for (;;) {
    const stats = (await (await fetch(`${url}/bench/stats`)).json()) as Stats;
    if (stats.completed === last) return stats;
    last = stats.completed;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

console.log(
  `tasks benchmark — node ${process.version}, ${cpus().length} cores; ${CONNECTIONS} connections, ${DURATION} s per burst after a 2 s warm-up`,
);

progress('hello');
const helloServer = await startChild(SERVER, ['--hello'], BENCH_NODE_ARGS);
const helloFigure = await cannon({ url: helloServer.line.split(' ')[1] });
await stopChild(helloServer.child, 5000);

progress('bare durable create');
const bare = await server(BARE);
const bareFigure = await cannon({
  url: `${bare.url}/image/generate`,
  method: 'POST',
  headers: bare.headers,
  body: GENERATE('noop'),
});
await bare.stop();

progress('imgtask: generate, items failing at once');
const noop = await server(SERVER);
await fetch(`${noop.url}/bench/reset`, { method: 'POST' });
const noopFigure = await cannon({
  url: `${noop.url}/image/generate`,
  method: 'POST',
  headers: noop.headers,
  body: GENERATE('noop'),
});
// The warm-up's tasks settle too: count from the burst's start, the tasks it created.
const settled = await drained(noop.url);
const burstCreated = noopFigure.perSecond * DURATION;
const endToEnd = burstCreated / ((settled.lastAt - noopFigure.startedAt) / 1000);
await noop.stop();

progress('imgtask: generate, placeholder drawing');
const drawing = await server(SERVER);
const drawingFigure = await cannon({
  url: `${drawing.url}/image/generate`,
  method: 'POST',
  headers: drawing.headers,
  body: GENERATE('placeholder'),
});
// Hours of images queued: killed, not drained.
await drawing.stop(true);

const backlogFigures: { queued: number; figure: Figure }[] = [];
for (const queued of BACKLOGS) {
  progress(`imgtask: no-op creates with ${queued} queued`);
  const paused = await server(SERVER, ['--paused']);
  if (queued > 0) {
    const res = await fetch(`${paused.url}/bench/backlog?n=${queued}`, { method: 'POST' });
    if (!res.ok) throw new Error(`backlog: ${res.status} ${await res.text()}`);
  }
  backlogFigures.push({
    queued,
    figure: await cannon({ url: `${paused.url}/bench/tasks`, method: 'POST', headers: paused.headers, body: '{}' }),
  });
  await paused.stop(true);
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (a: number, b: number) => (a / b).toFixed(3);
const row = (label: string, figure: Figure, anchor: Figure) =>
  `| ${label} | ${int(figure.perSecond)} | ${figure.p50} / ${figure.p99} | ${ratio(figure.perSecond, anchor.perSecond)} | ${figure.non2xx} |`;

console.log('\nAnchors');
console.log(
  `  bare hono hello-world          ${int(helloFigure.perSecond).padStart(7)}/s   p50 ${helloFigure.p50} ms, p99 ${helloFigure.p99} ms`,
);
console.log(
  `  bare durable create            ${int(bareFigure.perSecond).padStart(7)}/s   p50 ${bareFigure.p50} ms, p99 ${bareFigure.p99} ms (${ratio(bareFigure.perSecond, helloFigure.perSecond)} of hello)`,
);

console.log('\n| imgtask | req/s | p50 / p99 ms | ratio to the bare durable create | non-2xx |');
console.log('|---|---|---|---|---|');
console.log(row('POST /image/generate, items failing at once', noopFigure, bareFigure));
console.log(
  `| no-op tasks end to end (that burst, until its last task settled) | ${int(endToEnd)} | — | ${ratio(endToEnd, bareFigure.perSecond)} | — |`,
);
console.log(row('POST /image/generate, placeholder drawing beside', drawingFigure, bareFigure));

const flat = backlogFigures[0]?.figure ?? noopFigure;
console.log('\n| no-op creates, lane paused | req/s | p50 / p99 ms | ratio to 0 queued | non-2xx |');
console.log('|---|---|---|---|---|');
for (const { queued, figure } of backlogFigures) console.log(row(`${int(queued)} tasks queued`, figure, flat));

const spread = backlogFigures.length
  ? Math.max(...backlogFigures.map((b) => b.figure.perSecond)) /
    Math.min(...backlogFigures.map((b) => b.figure.perSecond))
  : 0;
const targets = [
  {
    what: 'generate creates (items failing at once) ≥ 0.5 × bare durable create',
    value: noopFigure.perSecond / bareFigure.perSecond,
    met: noopFigure.perSecond >= 0.5 * bareFigure.perSecond,
  },
  {
    what: `generate creates p99 ≤ 20 ms (the bare durable create's own p99 here: ${bareFigure.p99} ms)`,
    value: noopFigure.p99,
    met: noopFigure.p99 <= 20,
  },
  {
    what: 'no-op tasks end to end ≥ 0.4 × bare durable create',
    value: endToEnd / bareFigure.perSecond,
    met: endToEnd >= 0.4 * bareFigure.perSecond,
  },
  {
    what: 'placeholder drawing creates ≥ 0.25 × bare durable create',
    value: drawingFigure.perSecond / bareFigure.perSecond,
    met: drawingFigure.perSecond >= 0.25 * bareFigure.perSecond,
  },
  ...(backlogFigures.length
    ? [
        {
          what: 'creates with 0, 10,000 and 100,000 queued within 10 % (highest ÷ lowest)',
          value: spread,
          met: spread <= 1.1,
        },
      ]
    : []),
];
console.log('\nTargets (this run)');
for (const target of targets)
  console.log(`  ${target.met ? 'met    ' : 'not met'}  ${target.value.toFixed(3)}  ${target.what}`);
console.log(`\n(${Math.round((performance.now() - began) / 1000)} s in all)`);
process.exit(0);
