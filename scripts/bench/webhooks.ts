/**
 * Webhook delivery benchmark (not a test). Each round runs in fresh processes: a bare
 * node:http receiver in a child process, and a round process that
 *
 * 1. seeds a backlog: BENCH_EVENTS settled tasks without events (written into a snapshot),
 *    then `outbox.recoverMissing()` records their events, each with one delivery to one
 *    dashboard webhook (timed: start-up recovery with events to write);
 * 2. lets the real dispatcher (the one `serve` builds, same `deliverWebhook`) drain it to the
 *    receiver: signed, sent, attempt journaled. Drain rate = deliveries / (dispatcher start →
 *    last attempt durable). Latency per delivery: from the moment the dispatcher takes it
 *    (its message is built) to the receiver's answer, and to its attempt being durable;
 * 3. the anchor, in the same process against the same receiver: a bare loop of signed POSTs
 *    (node:http, keep-alive) at the same concurrency and body, nothing journaled.
 *
 * A second scenario times `recoverMissing` over BENCH_RECOVER settled tasks without events
 * and no webhook (one no-event mark each). Figures are medians over BENCH_ROUNDS rounds.
 *
 *   npm run bench:webhooks
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import type { TaskRecord } from '../../src/store/records.js';
import { deliverWebhook } from '../../src/webhooks/deliver.js';
import { createWebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { signWebhook } from '../../src/webhooks/sign.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const RECOVER = Number(process.env.BENCH_RECOVER ?? 100_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
const benchConfig = () => {
  const webhooks: Record<string, number | boolean> = { allowPrivateAddresses: true };
  if (process.env.BENCH_CONCURRENCY) webhooks.concurrency = Number(process.env.BENCH_CONCURRENCY);
  return loadConfig({ env: {}, overrides: { server: { port: 0 }, webhooks } });
};

/** A pending image.generate task, about 700 bytes settled. */
function pendingTask(n: number, accountId: string): TaskRecord {
  const id = `tsk_${n.toString(36).padStart(12, '0')}bench00000`;
  const at = new Date(Date.parse('2026-01-01') + n).toISOString();
  return {
    id,
    type: 'image.generate',
    status: 'pending',
    accountId,
    apiKeyId: null,
    request: {
      prompt: 'a lighthouse on a cliff at dawn, oil painting',
      count: 1,
      model: 'placeholder',
      size: 'square',
      metadata: { order: `o-${n}` },
    },
    items: [{ status: 'success', cost: 1000, result: { id: `img_${n}`, size: '1024x1024' }, attempts: 1 }],
    estimate: 1000,
    cost: 0,
    result: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * A data dir with one account (and a webhook to `hookUrl`, if given) and `count` settled
 * tasks without events, as a crash between settlements and their events would leave them:
 * written through the store (create, then settle), a thousand in flight at a time.
 */
async function seed(count: number, hookUrl?: string) {
  const dataDir = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const config = benchConfig();
  const services = (await openServices({ dataDir, config })).internals;
  const account = await services.accounts.create('bench', 1_000_000 * 1_000_000);
  if (hookUrl) await services.webhooks.create(account.id, { url: hookUrl });
  const { tasks } = services.store;
  for (let from = 0; from < count; from += 1000) {
    const chunk = Array.from({ length: Math.min(1000, count - from) }, (_, i) => pendingTask(from + i, account.id));
    await Promise.all(chunk.map((task) => tasks.create(task, {})));
    const at = new Date().toISOString();
    const result = (n: number) => ({
      model: 'placeholder',
      images: [
        {
          status: 'success',
          id: `img_${n}`,
          url: `http://127.0.0.1:8080/images/img_${n}.webp`,
          size: '1024x1024',
          cost: '0.001',
        },
      ],
    });
    await Promise.all(
      chunk.map((task, i) =>
        tasks.settle({ id: task.id, status: 'completed', result: result(from + i), cost: 1000, at }),
      ),
    );
  }
  await services.close();
  return { dataDir, config };
}

/** One delivery round, in its own process: recovery of the backlog, its drain, then the anchor. */
async function deliverRound(hookUrl: string) {
  const { dataDir, config } = await seed(EVENTS, hookUrl);
  const services = (await openServices({ dataDir, config })).internals;
  const r0 = performance.now();
  await services.outbox.recoverMissing();
  const recoverMs = performance.now() - r0;

  const taken = new Map<string, number>();
  const answered: number[] = [];
  const durable: number[] = [];
  let last = 0;
  const real = services.outbox;
  const outbox: typeof real = {
    ...real,
    message(d) {
      taken.set(d.id, performance.now());
      return real.message(d);
    },
    async recordAttempt(d, result) {
      const saved = await real.recordAttempt(d, result);
      last = performance.now();
      durable.push(last - taken.get(d.id)!);
      return saved;
    },
  };
  const dispatcher = createWebhookDispatcher({
    outbox,
    events: services.events,
    config: services.config,
    log: (message) => process.stderr.write(`${message}\n`),
    send: async (delivery, message) => {
      const { timeoutMs, allowPrivateAddresses } = config.webhooks;
      const result = await deliverWebhook({ url: delivery.url, secret: message.secret }, message, {
        timeoutMs,
        allowPrivateAddresses,
        now: Date.now,
      });
      answered.push(performance.now() - taken.get(delivery.id)!);
      return result;
    },
  });
  const profile = process.env.BENCH_PROFILE ? await startProfile() : null;
  const t0 = performance.now();
  dispatcher.start();
  while ((await services.store.webhooks.deliveryCounts()).pending > 0) await sleep(5);
  const drainMs = last - t0;
  await profile?.(process.env.BENCH_PROFILE!);
  const counts = await services.store.webhooks.deliveryCounts();
  await dispatcher.close(1000);

  // The anchor: the same body, signed the same way, sent by a bare keep-alive loop.
  const [webhook] = await services.store.webhooks.listAll();
  const { secret } = await services.webhooks.get(null, webhook.id);
  const event = await services.store.webhooks.getEvent(
    (await services.store.webhooks.deliveriesOf(webhook.id, 1))[0].eventId,
  );
  const body = JSON.stringify(event!.payload);
  const anchor = await bareLoop(hookUrl, secret, body, EVENTS, config.webhooks.concurrency);
  await services.close();
  await rm(dataDir, { recursive: true, force: true });
  return {
    concurrency: config.webhooks.concurrency,
    delivered: counts.delivered,
    failed: counts.failed,
    recoverMs,
    rate: (EVENTS / drainMs) * 1000,
    answered: { p50: pct(answered, 0.5), p99: pct(answered, 0.99) },
    durable: { p50: pct(durable, 0.5), p99: pct(durable, 0.99) },
    anchor,
  };
}

/** BENCH_PROFILE=file.cpuprofile: a CPU profile of the drain alone (not the seeding). */
async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (file: string) => {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  };
}

async function bareLoop(url: string, secret: string, body: string, count: number, concurrency: number) {
  const agent = new http.Agent({ keepAlive: true });
  const latencies: number[] = [];
  let next = 0;
  const post = (id: string) =>
    new Promise<void>((resolve, reject) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, id, timestamp, body),
      };
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (next < count) {
      const started = performance.now();
      await post(`evt_anchor${next++}`);
      latencies.push(performance.now() - started);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - t0;
  agent.destroy();
  return { rate: (count / ms) * 1000, p50: pct(latencies, 0.5), p99: pct(latencies, 0.99) };
}

async function recoverRound() {
  const { dataDir, config } = await seed(RECOVER);
  const services = (await openServices({ dataDir, config })).internals;
  const t0 = performance.now();
  const recovered = await services.outbox.recoverMissing();
  const ms = performance.now() - t0;
  const left = (await services.store.webhooks.settledWithoutEvent()).length;
  await services.close();
  await rm(dataDir, { recursive: true, force: true });
  return { recovered, left, ms };
}

function receiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook\n`),
  );
  process.on('SIGTERM', () => process.exit(0));
}

/** Runs this script in a fresh process with `args`; resolves with the first line it prints. */
function child(args: string[], env: Record<string, string> = {}) {
  const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const line = new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    proc.on('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { proc, line };
}

async function main() {
  console.log(`webhooks benchmark — node ${process.version}, ${cpus().length} cores, ${ROUNDS} rounds, medians`);
  // The configured default first, then a larger pool (BENCH_CONCURRENCY=8,32 overrides both).
  const levels = (process.env.BENCH_CONCURRENCY ?? `${benchConfig().webhooks.concurrency},32`).split(',').map(Number);
  for (const concurrency of levels) {
    const rounds: Awaited<ReturnType<typeof deliverRound>>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const recv = child(['--receiver']);
      const url = await recv.line;
      rounds.push(JSON.parse(await child(['--deliver', url], { BENCH_CONCURRENCY: String(concurrency) }).line));
      recv.proc.kill('SIGTERM');
      const r = rounds.at(-1)!;
      console.log(
        `  round ${i + 1}: ${r.delivered} delivered (${r.failed} failed) at ${Math.round(r.rate)}/s, answered p50/p99 ${r.answered.p50.toFixed(1)}/${r.answered.p99.toFixed(1)} ms, durable p50/p99 ${r.durable.p50.toFixed(1)}/${r.durable.p99.toFixed(1)} ms; anchor ${Math.round(r.anchor.rate)}/s (p50/p99 ${r.anchor.p50.toFixed(1)}/${r.anchor.p99.toFixed(1)} ms); recovery ${Math.round(r.recoverMs)} ms`,
      );
    }
    const m = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
    const rate = m((r) => r.rate);
    const anchorRate = m((r) => r.anchor.rate);
    console.log(`backlog of ${EVENTS} events, one dashboard webhook, concurrency ${rounds[0].concurrency}:`);
    console.log(`  drained            ${Math.round(rate)} deliveries/s (dispatcher start → last attempt durable)`);
    console.log(
      `  taken → answered   p50 ${m((r) => r.answered.p50).toFixed(1)} ms, p99 ${m((r) => r.answered.p99).toFixed(1)} ms`,
    );
    console.log(
      `  taken → durable    p50 ${m((r) => r.durable.p50).toFixed(1)} ms, p99 ${m((r) => r.durable.p99).toFixed(1)} ms`,
    );
    console.log(
      `  anchor (bare signed keep-alive POST loop, same concurrency) ${Math.round(anchorRate)} req/s, p50 ${m((r) => r.anchor.p50).toFixed(1)} ms, p99 ${m((r) => r.anchor.p99).toFixed(1)} ms`,
    );
    console.log(
      `  ratio drain / anchor ${(rate / anchorRate).toFixed(2)} (per round: ${rounds.map((r) => (r.rate / r.anchor.rate).toFixed(2)).join(', ')})`,
    );
    console.log(
      `  recording the ${EVENTS} events at start-up (recoverMissing): ${Math.round(m((r) => r.recoverMs))} ms\n`,
    );
  }

  if (RECOVER > 0) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const r = JSON.parse(await child(['--recover']).line) as Awaited<ReturnType<typeof recoverRound>>;
      if (r.left !== 0 || r.recovered !== RECOVER) throw new Error(`recovery left ${r.left} of ${r.recovered}`);
      times.push(r.ms);
      console.log(`  recovery round ${i + 1}: ${r.recovered} marks in ${Math.round(r.ms)} ms`);
    }
    console.log(
      `recoverMissing over ${RECOVER} settled tasks without events (no webhook: one mark each): ${(median(times) / 1000).toFixed(2)} s`,
    );
  }
}

const mode = process.argv[2];
if (mode === '--receiver') receiver();
else if (mode === '--deliver')
  process.stdout.write(`${JSON.stringify(await deliverRound(process.argv[3]))}\n`, () => process.exit(0));
else if (mode === '--recover') process.stdout.write(`${JSON.stringify(await recoverRound())}\n`, () => process.exit(0));
else await main();
