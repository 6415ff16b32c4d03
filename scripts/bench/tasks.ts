/**
 * Task engine benchmark (not a test). Prints:
 *  - creates per second over HTTP, each answered after its record is durable, against a bare
 *    hono hello-world on the same machine (the ratio says what the engine costs);
 *  - tasks completed per second end to end with a no-op handler, and p50/p99 create→completed;
 *  - creates per second of `POST /image/generate` with the placeholder model, whose items run
 *    on the same two cores while the creates arrive (what a user of one machine sees).
 * Start-up and listing at 1M stored tasks: scripts/bench/startup.ts.
 *
 *   npm run bench:tasks              (BENCH_SECONDS=10)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startChild, stopChild } from './fixtures/child.js';

const SERVER = join(import.meta.dirname, 'fixtures/bench-server.ts');
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

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
  const hello = await startChild(SERVER, ['--hello']);
  const helloUrl = hello.line.split(' ')[1];
  const bare = await cannon({ url: helloUrl, connections: 50, duration: DURATION });
  await stopChild(hello.child);

  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const server = await startChild(SERVER, [data]);
  const [, url, , key] = server.line.split(' ');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const create = (extra: Partial<autocannon.Options>) => cannon({ url: `${url}/bench/tasks`, method: 'POST', headers, body: '{}', connections: 50, duration: DURATION, ...extra });

  await fetch(`${url}/bench/reset`, { method: 'POST' });
  const creates = await create({});
  const saturated = await drained(url);
  await fetch(`${url}/bench/reset`, { method: 'POST' });
  const steady = await autocannon({ url: `${url}/bench/tasks`, method: 'POST', headers, body: '{}', connections: 10, duration: DURATION, overallRate: 500 });
  const stats = await drained(url);
  await stopChild(server.child);
  await rm(data, { recursive: true, force: true });

  // Generate creates on a fresh server: its placeholder items run beside the creates. The backlog
  // is not drained (hours of images); the server is killed and its data dir removed.
  const generateData = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const generateServer = await startChild(SERVER, [generateData]);
  const [, generateUrl, , generateKey] = generateServer.line.split(' ');
  const generate = await cannon({
    url: `${generateUrl}/image/generate`,
    method: 'POST',
    headers: { authorization: `Bearer ${generateKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model: 'placeholder' }),
    connections: 50,
    duration: DURATION,
  });
  generateServer.child.removeAllListeners('exit');
  generateServer.child.kill('SIGKILL');
  await rm(generateData, { recursive: true, force: true });

  console.log(`\nHTTP over loopback, 50 connections, ${DURATION} s (autocannon in this process, servers in child processes):`);
  console.log(`bare hono hello-world     ${Math.round(bare.requests.average).toString().padStart(7)} req/s  p50 ${bare.latency.p50} ms  p99 ${bare.latency.p99} ms`);
  console.log(
    `POST no-op create         ${Math.round(creates.requests.average).toString().padStart(7)} req/s  p50 ${creates.latency.p50} ms  p99 ${creates.latency.p99} ms  non-2xx ${creates.non2xx}`,
  );
  console.log(`ratio create / hello      ${(creates.requests.average / bare.requests.average).toFixed(3)}`);
  console.log(
    `POST /image/generate      ${Math.round(generate.requests.average).toString().padStart(7)} req/s  p50 ${generate.latency.p50} ms  p99 ${generate.latency.p99} ms  non-2xx ${generate.non2xx}  (placeholder items running beside)`,
  );
  console.log(`ratio generate / hello    ${(generate.requests.average / bare.requests.average).toFixed(3)}`);
  console.log(
    `tasks completed under that load: ${saturated.completed} in ${saturated.seconds.toFixed(1)} s = ${Math.round(saturated.completed / saturated.seconds)} tasks/s (create → completed p50 ${saturated.p50} ms, p99 ${saturated.p99} ms)`,
  );
  console.log(`\nEnd to end at a steady 500 creates/s with a no-op handler (create → completed, from settlement events):`);
  console.log(
    `completed ${stats.completed} tasks in ${stats.seconds.toFixed(1)} s = ${Math.round(stats.completed / stats.seconds)} tasks/s; p50 ${stats.p50} ms, p99 ${stats.p99} ms (ms resolution); server RSS ${mb(stats.rss)}; non-2xx ${steady.non2xx}`,
  );
}

console.log(`tasks benchmark — node ${process.version}, ${cpus().length} cores`);
await httpBenchmarks();
