/**
 * Embedded providers benchmark (not a test). Prints:
 *  - background removal at 512² and 1024²: cold and warm latency and peak RSS, through our
 *    provider (worker thread) and through the bare library with the same onnxruntime options
 *    in the same run (the ratio is our overhead);
 *  - NSFW rating: cold and warm latency per image, and images per second with 2 in flight;
 *  - p99 of GET /tasks/{id}/status while the embedded models are busy, against idle.
 *
 *   npm run bench:providers        (about three minutes)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (kb: number) => `${Math.round(kb / 1024)} MiB`;

async function scene(size: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1e5799"/><stop offset="1" stop-color="#7db9e8"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#f5d020"/><rect x="${size / 8}" y="${size / 8}" width="${size / 6}" height="${size / 3}" fill="#c0392b" transform="rotate(15)"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function timeCalls(call: () => Promise<unknown>, warm: number) {
  let t0 = performance.now();
  await call();
  const cold = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < warm; i++) {
    t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  return { cold, warm: median(times) };
}

/** One scenario in this (child) process; prints one JSON line. */
async function scenario(kind: string, size: number): Promise<Record<string, unknown>> {
  const image = await scene(size);
  const signal = new AbortController().signal;
  if (kind === 'ours') {
    const { createEmbeddedBackgroundRemover } = await import('../../src/providers/embedded/background/remover.js');
    const remover = createEmbeddedBackgroundRemover({ threads: 2 });
    const r = await timeCalls(() => remover.remove({ data: image, format: 'png', width: size, height: size }, signal), 3);
    await remover.close();
    return { ...r, maxRssKb: process.resourceUsage().maxRSS };
  }
  if (kind === 'bare') {
    const ort = await import('onnxruntime-node');
    const create = ort.InferenceSession.create.bind(ort.InferenceSession);
    (ort.InferenceSession as { create: unknown }).create = (m: never, o: object = {}) =>
      create(m, { ...o, executionMode: 'sequential', intraOpNumThreads: 2, interOpNumThreads: 1, enableMemPattern: false });
    const imgly = await import('@imgly/background-removal-node');
    const publicPath = pathToFileURL(`${dirname(fileURLToPath(import.meta.resolve('@imgly/background-removal-node')))}/`).href;
    const r = await timeCalls(
      async () => (await imgly.removeBackground(new Blob([new Uint8Array(image)], { type: 'image/png' }), { publicPath, model: 'small', output: { format: 'image/png' } })).arrayBuffer(),
      3,
    );
    return { ...r, maxRssKb: process.resourceUsage().maxRSS };
  }
  if (kind === 'nsfw') {
    const { createEmbeddedNsfwRater } = await import('../../src/providers/embedded/nsfw/rater.js');
    const rater = createEmbeddedNsfwRater();
    const r = await timeCalls(() => rater.predict(image), 15);
    const started = performance.now();
    let done = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (performance.now() - started < 5000) {
          await rater.predict(image);
          done += 1;
        }
      }),
    );
    const perSecond = done / ((performance.now() - started) / 1000);
    await rater.close();
    return { ...r, perSecond, maxRssKb: process.resourceUsage().maxRSS };
  }
  throw new Error(`unknown scenario ${kind}`);
}

function runChild(...args: string[]) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'scenario', ...args], { encoding: 'utf8', timeout: 600_000 });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!);
}

/** p99 of GET /tasks/{id}/status over 8 s, idle and then while background removal and rating run. */
async function apiUnderLoad() {
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const server: ChildProcess = spawn(process.execPath, ['bin/imgtask.js', '--data', data, 'serve', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => server.stdout!.on('data', (chunk) => /"url": "([^"]+)"/.test(String(chunk)) && resolve(/"url": "([^"]+)"/.exec(String(chunk))![1])));
  const cli = (...args: string[]) => JSON.parse(spawnSync(process.execPath, ['bin/imgtask.js', '--data', data, ...args, '--json'], { encoding: 'utf8' }).stdout);
  cli('accounts', 'create', 'bench', '--credit', '1000');
  const key = cli('keys', 'create', '--account', 'bench').raw;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await scene(1024))]), 'scene.png');
  const upload = (await (await fetch(`${url}/image/upload`, { method: 'POST', headers: { authorization: headers.authorization }, body: form })).json()) as {
    data: { files: { service_url: string }[] };
  };
  const imageUrl = upload.data.files[0].service_url;
  const taskId = ((await (await fetch(`${url}/image/generate`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'x' }) })).json()) as { data: { taskId: string } }).data.taskId;
  const status = () => autocannon({ url: `${url}/tasks/${taskId}/status`, headers, connections: 10, duration: 8 });
  await status(); // warm-up
  const idle = await status();
  // Load the models: background removals (one at a time in their lane) and a stream of ratings.
  for (let i = 0; i < 4; i++) await fetch(`${url}/image/remove-background`, { method: 'POST', headers, body: JSON.stringify({ url: imageUrl }) });
  let rating = true;
  const rater = (async () => {
    while (rating) await fetch(`${url}/image/rate`, { method: 'POST', headers, body: JSON.stringify({ mode: 'nsfw_sfw', urls: [imageUrl, imageUrl], sync: true }) });
  })();
  await new Promise((resolve) => setTimeout(resolve, 3000)); // models loaded and busy
  const busy = await status();
  rating = false;
  await rater;
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  await rm(data, { recursive: true, force: true });
  return { idle, busy };
}

if (process.argv[2] === 'scenario') {
  process.stdout.write(`${JSON.stringify(await scenario(process.argv[3], Number(process.argv[4] ?? 512)))}\n`);
} else {
  console.log(`providers benchmark — node ${process.version}, ${(await import('node:os')).cpus().length} cores; each row a fresh process`);
  console.log('\nBackground removal (ISNet small, onnxruntime sequential with 2 threads), warm = median of 3:');
  console.log('size  | ours: cold / warm   peak RSS | bare library: cold / warm   peak RSS | warm ratio');
  for (const size of [512, 1024]) {
    const ours = runChild('ours', String(size));
    const bare = runChild('bare', String(size));
    console.log(
      `${String(size).padEnd(5)} | ${(ours.cold / 1000).toFixed(2)} s / ${(ours.warm / 1000).toFixed(2)} s  ${mb(ours.maxRssKb)} | ${(bare.cold / 1000).toFixed(2)} s / ${(bare.warm / 1000).toFixed(2)} s  ${mb(bare.maxRssKb)} | ${(ours.warm / bare.warm).toFixed(3)}`,
    );
  }
  const nsfw = runChild('nsfw', '512');
  console.log(
    `\nNSFW rating (nsfwjs MobileNetV2, wasm, worker thread): cold ${nsfw.cold.toFixed(0)} ms (model load included), warm ${nsfw.warm.toFixed(1)} ms per image, ${nsfw.perSecond.toFixed(1)} images/s with 2 in flight, peak RSS ${mb(nsfw.maxRssKb)}`,
  );
  const { idle, busy } = await apiUnderLoad();
  console.log('\nGET /tasks/{id}/status, 10 connections, 8 s:');
  console.log(`idle                           ${Math.round(idle.requests.average)} req/s  p50 ${idle.latency.p50} ms  p99 ${idle.latency.p99} ms`);
  console.log(`models busy (bg removal+rating) ${Math.round(busy.requests.average)} req/s  p50 ${busy.latency.p50} ms  p99 ${busy.latency.p99} ms`);
}
