/**
 * Content Credentials benchmark (not a test): what signing an output costs (docs/provenance.md).
 *
 * (a) Signing one output through the service's signer (createOutputSigner, as the image and video
 *     libraries call it when they store an output) beside its anchor in the same run: a bare
 *     c2pa-node `builder.sign` with a LocalSigner (the library's README way) of the same bytes,
 *     with the same certificate, builder settings (no thumbnail) and manifest definition. A third
 *     column, the bare `signAsync` with a callback signer (the way the service signs, off the event
 *     loop), splits any gap into the library's async path and the service's own work. 1024² PNG,
 *     JPEG and WebP images (photo-like, as scripts/bench/review.ts) and a 2 s placeholder video as
 *     MP4 and as animated WebP (640×360, 24 fps). Each round signs every asset once each way,
 *     interleaved (the order alternating), after WARM_UP untimed rounds; median and p95 of RUNS.
 * (b) The generate burst (fixtures/bench-server.ts, as bench:tasks runs it: the placeholder model
 *     drawing 1024² images, stored as WebP, the default) with `provenance.enabled` on and off
 *     (--no-provenance), each run in a fresh server, the order alternating: BURST tasks posted at
 *     50 connections; creates/s while posting, and end to end (tasks ÷ the time from the first
 *     post to the last task settled).
 *
 *   npm run bench:provenance     BENCH_RUNS=60 (signing rounds)  BENCH_BURST=200 (tasks a burst)  BENCH_ROUNDS=3
 * (off/on pairs)
 *                                BENCH_PART=signing|burst (one half only)
 *                                BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (node flags of the burst's servers)
 */
import { createHash, createPrivateKey, sign as signBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, CallbackSigner, LocalSigner } from '@contentauth/c2pa-node';
import autocannon from 'autocannon';
import sharp from 'sharp';
import type { OutputOrigin } from '../../src/domain/provenance.js';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { encodeFrames } from '../../src/media/video-encode.js';
import { placeholderFrames } from '../../src/providers/embedded/placeholder-video.js';
import { buildManifest } from '../../src/services/provenance-manifest.js';
import { createOutputSigner } from '../../src/services/provenance-signer.js';
import { makeTestChain, type TestChain } from '../../test/helpers/c2pa-certs.js';
import { BENCH_NODE_ARGS, startChild, stopChild } from './fixtures/child.js';
import { cpuSpent, sampleCpu } from './fixtures/cpu.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const WARM_UP = 3;
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
const SERVER = join(import.meta.dirname, 'fixtures/bench-server.ts');

const began = performance.now();
const progress = (line: string) =>
  process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)];
const p95 = (values: number[]) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];
const ms = (value: number) => `${value.toFixed(1)} ms`;
const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;

/** A photo-like scene: gradients, shapes and deterministic noise (as scripts/bench/review.ts). */
async function scene(size: number): Promise<ReturnType<typeof sharp>> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1e5799"/><stop offset="1" stop-color="#7db9e8"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#f5d020"/><rect x="${size / 8}" y="${size / 8}" width="${size / 6}" height="${size / 3}" fill="#c0392b" transform="rotate(15)"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
  let seed = 7;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    data[i] = Math.max(0, Math.min(255, data[i] + ((seed >> 16) % 31) - 15));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
}

interface Asset {
  label: string;
  mimeType: string;
  data: Buffer;
}

async function assets(): Promise<Asset[]> {
  const image = await scene(1024);
  const clip = {
    prompt: 'a red fox running through snow at dawn',
    width: 640,
    height: 360,
    durationS: 2,
    fps: 24,
    index: 0,
  };
  const ffmpegPath = bundledFfmpegPath();
  const video = async (format: 'mp4' | 'webp') =>
    encodeFrames(await placeholderFrames({ ...clip, signal: new AbortController().signal }), {
      ...clip,
      format,
      ffmpegPath,
      signal: new AbortController().signal,
    });
  return [
    { label: '1024² PNG', mimeType: 'image/png', data: await image.clone().png().toBuffer() },
    { label: '1024² JPEG', mimeType: 'image/jpeg', data: await image.clone().jpeg({ quality: 90 }).toBuffer() },
    { label: '1024² WebP', mimeType: 'image/webp', data: await image.clone().webp({ quality: 90 }).toBuffer() },
    { label: '2 s MP4 (640×360)', mimeType: 'video/mp4', data: await video('mp4') },
    { label: '2 s animated WebP (640×360)', mimeType: 'image/webp', data: await video('webp') },
  ];
}

/** The origin of a generated image as the service states it (no ingredient, no prompt). */
const ORIGIN: OutputOrigin = {
  action: 'created',
  taskId: 'task_bench0000000000000000',
  taskType: 'image.generate',
  model: 'placeholder',
  provider: 'placeholder',
  seed: 1234,
  parametersSha256: createHash('sha256').update('{"size":"1024x1024"}').digest('hex'),
  rating: 'safe',
};

/** The service's builder settings (src/media/c2pa.ts): no thumbnail. */
const SETTINGS = { builder: { thumbnail: { enabled: false } } };

type Sign = (asset: Asset) => Promise<Buffer>;

/**
 * The bare library, as its README signs: a builder from the manifest definition, a LocalSigner, `builder.sign` into a
 * buffer.
 */
function bareSigner(chain: TestChain): Sign {
  const signer = LocalSigner.newSigner(Buffer.from(chain.chainPem), Buffer.from(chain.privateKeyPem), 'es256');
  return async (asset) => {
    const builder = Builder.withJson(
      buildManifest({ version: '0.1.0', mimeType: asset.mimeType, origin: ORIGIN, includePrompt: false }),
      SETTINGS as never,
    );
    const out = { buffer: null as Buffer | null };
    builder.sign(signer, { buffer: asset.data, mimeType: asset.mimeType }, out);
    return out.buffer!;
  };
}

/**
 * The bare library's other way to sign, the one the service takes (src/media/c2pa.ts): `signAsync`
 * with a CallbackSigner whose signature Node's crypto makes, off the event loop. Splits the gap
 * between the service and the bare sign into the library's async path and the service's own work.
 */
function bareAsyncSigner(chain: TestChain): Sign {
  const key = createPrivateKey(chain.privateKeyPem);
  const signer = CallbackSigner.newSigner(
    { alg: 'es256', certs: [Buffer.from(chain.chainPem)], reserveSize: 20_000, directCoseHandling: false },
    async (data: Buffer) => signBytes('sha256', data, { key, dsaEncoding: 'ieee-p1363' }),
  );
  return async (asset) => {
    const builder = Builder.withJson(
      buildManifest({ version: '0.1.0', mimeType: asset.mimeType, origin: ORIGIN, includePrompt: false }),
      SETTINGS as never,
    );
    const out = { buffer: null as Buffer | null };
    await builder.signAsync(signer, { buffer: asset.data, mimeType: asset.mimeType }, out);
    return out.buffer!;
  };
}

/** The service's signer (createOutputSigner), as the image and video libraries call it when they store an output. */
async function serviceSigner(chain: TestChain): Promise<Sign> {
  const signer = await createOutputSigner({
    settings: { enabled: true, includePrompt: false },
    keys: async () => ({
      chainPem: chain.chainPem,
      privateKeyPem: chain.privateKeyPem,
      anchorsPem: [chain.caPem],
      certificate: undefined,
    }),
    log: (message) => progress(message),
    version: '0.1.0',
  });
  if (signer.status().state !== 'signing')
    throw new Error(`the service's signer is ${signer.status().state}: ${signer.status().reason}`);
  return async (asset) => (await signer.sign(asset.data, asset.mimeType, ORIGIN)).data;
}

async function signing(): Promise<void> {
  progress('assets and certificates');
  const list = await assets();
  const chain = await makeTestChain({ commonName: 'imgtask bench signer' });
  const ways: { label: string; sign: Sign }[] = [
    { label: 'bare', sign: bareSigner(chain) },
    { label: 'async', sign: bareAsyncSigner(chain) },
    { label: 'service', sign: await serviceSigner(chain) },
  ];
  const times = new Map<string, number[]>();
  const grown = new Map<string, number>();
  progress(`signing: ${WARM_UP} warm-up rounds, then ${RUNS}, each asset both ways, interleaved`);
  for (let round = 0; round < WARM_UP + RUNS; round++) {
    for (const asset of list) {
      // Alternate which goes first, so neither always meets a warm cache.
      for (const way of round % 2 ? [...ways].reverse() : ways) {
        const t0 = performance.now();
        const signed = await way.sign(asset);
        const took = performance.now() - t0;
        const key = `${asset.label}|${way.label}`;
        if (round >= WARM_UP) times.set(key, [...(times.get(key) ?? []), took]);
        grown.set(key, signed.length - asset.data.length);
      }
    }
  }
  const figure = (values: number[]) => `${ms(median(values))} / ${ms(p95(values))}`;
  console.log(`\nSigning one output: median / p95 of ${RUNS} runs`);
  console.log(
    '| asset | size | bare `sign` (LocalSigner) | bare `signAsync` (callback signer) | service signer | service ÷ bare `sign` | service ÷ bare `signAsync` | manifest adds |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const asset of list) {
    const [bare, async, service] = ['bare', 'async', 'service'].map((way) => times.get(`${asset.label}|${way}`)!);
    console.log(
      `| ${asset.label} | ${kib(asset.data.length)} | ${figure(bare)} | ${figure(async)} | ${figure(service)} | ${(median(service) / median(bare)).toFixed(2)} × | ${(median(service) / median(async)).toFixed(2)} × | ${kib(grown.get(`${asset.label}|service`)!)} (bare: ${kib(grown.get(`${asset.label}|bare`)!)}) |`,
    );
  }
}

interface Burst {
  createsPerSecond: number;
  p50: number;
  p99: number;
  endToEnd: number;
  /**
   * The server's CPU time (all its threads) per task, ms: what the rates above share the cores for, less sensitive to
   * the machine's other load.
   */
  cpuPerTask: number;
  non2xx: number;
  /** The items of the last 50 tasks whose stored image says `provenance: signed`, of those that say either. */
  signed: string;
}

/** BURST placeholder generate tasks posted at 50 connections to a fresh server; `args` pick its config. */
async function burst(args: string[]): Promise<Burst> {
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const { child, line } = await startChild(SERVER, [data, ...args], BENCH_NODE_ARGS);
  try {
    const url = line.split(' ')[1];
    const headers = { authorization: `Bearer ${line.split(' ')[3]}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model: 'placeholder' });
    // A few tasks first, until settled: the first image loads the fonts, sharp and the signer's library.
    await autocannon({ url: `${url}/image/generate`, method: 'POST', headers, body, connections: 4, amount: 8 });
    await settled(url, 8);
    await fetch(`${url}/bench/reset`, { method: 'POST' });
    const startedAt = Date.now();
    const cpuBefore = sampleCpu([child.pid!]);
    const result = await autocannon({
      url: `${url}/image/generate`,
      method: 'POST',
      headers,
      body,
      connections: CONNECTIONS,
      amount: BURST,
    });
    const creates = result['2xx'];
    const { lastAt } = await settled(url, creates);
    const cpu = cpuSpent(cpuBefore, sampleCpu([child.pid!]));
    const listed = await (await fetch(`${url}/tasks?limit=50`, { headers })).text();
    const count = (state: string) => listed.split(`"provenance":"${state}"`).length - 1;
    return {
      createsPerSecond: creates / (result.duration || 1e-9),
      p50: result.latency.p50,
      p99: result.latency.p99,
      endToEnd: creates / ((lastAt - startedAt) / 1000),
      cpuPerTask: (cpu.imgtask * 1000) / creates,
      non2xx: result.non2xx + result.errors,
      signed: `${count('signed')} of ${count('signed') + count('unsigned')}`,
    };
  } finally {
    await stopChild(child, 30_000);
    await rm(data, { recursive: true, force: true });
  }
}

/** Waits until `count` tasks have settled since the last reset; answers when the last one did. */
async function settled(url: string, count: number): Promise<{ lastAt: number }> {
  for (;;) {
    const stats = (await (await fetch(`${url}/bench/stats`)).json()) as { completed: number; lastAt: number };
    if (stats.completed >= count) return stats;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** ROUNDS pairs of bursts, off and on, each in a fresh server; each run, and the ratio of the means. */
async function bursts(): Promise<void> {
  const runs: { on: boolean; figure: Burst }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // The order alternates between rounds, so neither setting always runs first.
    for (const on of round % 2 ? [false, true] : [true, false]) {
      progress(`generate burst ${round} of ${ROUNDS}, provenance ${on ? 'on' : 'off'}`);
      runs.push({ on, figure: await burst(on ? [] : ['--no-provenance']) });
    }
  }
  const mean = (on: boolean, of: (figure: Burst) => number) => {
    const picked = runs.filter((run) => run.on === on).map((run) => of(run.figure));
    return picked.reduce((sum, value) => sum + value, 0) / picked.length;
  };
  const int = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `\nThe generate burst: ${BURST} placeholder tasks (1024², stored as WebP, the default) at ${CONNECTIONS} connections, each run in a fresh server`,
  );
  console.log(
    '| run | creates/s | create p50 / p99 ms | end to end, tasks/s | server CPU per task | items signed (last 50 tasks) | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const { on, figure } of runs) {
    console.log(
      `| provenance ${on ? 'on' : 'off'} | ${int(figure.createsPerSecond)} | ${figure.p50} / ${figure.p99} | ${figure.endToEnd.toFixed(2)} | ${figure.cpuPerTask.toFixed(1)} ms | ${figure.signed} | ${figure.non2xx} |`,
    );
  }
  const creates = mean(true, (f) => f.createsPerSecond) / mean(false, (f) => f.createsPerSecond);
  const endToEnd = mean(true, (f) => f.endToEnd) / mean(false, (f) => f.endToEnd);
  const cpu = mean(true, (f) => f.cpuPerTask) / mean(false, (f) => f.cpuPerTask);
  console.log(
    `| on ÷ off (means of ${ROUNDS}) | ${creates.toFixed(3)} | | ${endToEnd.toFixed(3)} | ${cpu.toFixed(3)} | | |`,
  );
}

console.log(
  `provenance benchmark — node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the start; ${RUNS} runs`,
);
if (process.env.BENCH_PART !== 'burst') await signing();
if (process.env.BENCH_PART !== 'signing') await bursts();
console.log(
  `\n(load average ${loadavg()[0].toFixed(1)} at the end; ${Math.round((performance.now() - began) / 1000)} s in all)`,
);
process.exit(0);
