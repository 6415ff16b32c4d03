/**
 * Embedded providers benchmark (not a test), through the HTTP API as a user sees it: a real
 * server (`startServer`, temp data dir, an account and API key made through `server.services`,
 * the image uploaded), each figure beside its anchor, the bare library doing the same work in
 * the same run, as a ratio. Every cold figure is a fresh process; each figure is the median of
 * 3 processes (warm: the median of each process's warm calls, then the median of those).
 *  - NSFW rating: POST /image/rate (sync) against sharp decode + resize to 224² + nsfwjs classify.
 *    Cold: the first request, sent as soon as the server listens and the image is uploaded (the
 *    model is then still loading in the background); bare cold: import tfjs and nsfwjs, load, classify.
 *  - Background removal: POST /image/remove-background, then GET /tasks/{id}/status every 20 ms
 *    until it settles, against imgly's removeBackground with the same onnxruntime options.
 *  - GET /tasks/{id}/status p50/p99 while both models run, against idle (`imgtask serve`).
 *  - ComfyUI: generate through the fake ComfyUI answering at once, 1 and 4 servers, against a bare
 *    ComfyUI client driving the same fakes in the same run (comfyui.ts).
 *
 *   npm run bench:providers                 (about four minutes)
 *   BENCH_ONLY=rate|background|comfyui|status ...    one part only
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { comfyuiBench } from './comfyui.js';

const ROUNDS = 3;
const RATE_WARM = 15;
const BACKGROUND_WARM = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (kb: number) => `${Math.round(kb / 1024)} MiB`;

/** A photo-like scene: gradients, shapes and deterministic noise (as in DEPENDENCIES.md §4). */
async function scene(size: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1e5799"/><stop offset="1" stop-color="#7db9e8"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#f5d020"/><rect x="${size / 8}" y="${size / 8}" width="${size / 6}" height="${size / 3}" fill="#c0392b" transform="rotate(15)"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
  let seed = 7;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    data[i] = Math.max(0, Math.min(255, data[i] + ((seed >> 16) % 31) - 15));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png()
    .toBuffer();
}

async function time<T>(call: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await call();
  return performance.now() - t0;
}

/** A real server in this process with only `model` enabled, an API key, and `image` uploaded. */
async function serverWith(model: 'nsfw' | 'backgroundRemoval', image: Buffer) {
  const { startServer } = await import('../../src/app/server.js');
  const { loadConfig } = await import('../../src/config/load.js');
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const embedded = {
    nsfw: { enabled: model === 'nsfw', timeoutMs: 60_000 },
    backgroundRemoval: { enabled: model === 'backgroundRemoval', model: 'small', threads: 2, timeoutMs: 120_000 },
    altText: { enabled: false, ocr: false },
  };
  const config = loadConfig({
    env: {},
    overrides: { server: { host: '127.0.0.1', port: 0 }, fetch: { allowPrivateAddresses: true }, embedded },
  });
  const server = await startServer({ dataDir: data, config });
  const listening = performance.now();
  const account = await server.services.accounts.create('bench', 1_000 * 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id, name: 'bench' });
  const headers = { authorization: `Bearer ${raw}`, 'content-type': 'application/json' };
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(image)]), 'scene.png');
  const res = await fetch(`${server.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: headers.authorization },
    body: form,
  });
  const [file] = ((await res.json()) as { data: { files: { id: string; service_url: string }[] } }).data.files;
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as { data: { taskId?: string } };
  };
  return {
    server,
    imageId: file.id,
    imageUrl: file.service_url,
    post,
    headers,
    sinceListening: () => performance.now() - listening,
    close: async () => {
      await server.close();
      await rm(data, { recursive: true, force: true });
    },
  };
}

/** imgly with the onnxruntime options our worker sets (the ORT class patched before imgly loads). */
async function bareImgly() {
  const ort = await import('onnxruntime-node');
  const create = ort.InferenceSession.create.bind(ort.InferenceSession);
  (ort.InferenceSession as { create: unknown }).create = (m: never, o: object = {}) =>
    create(m, {
      ...o,
      executionMode: 'sequential',
      intraOpNumThreads: 2,
      interOpNumThreads: 1,
      enableMemPattern: false,
    });
  const imgly = await import('@imgly/background-removal-node');
  const publicPath = pathToFileURL(
    `${dirname(fileURLToPath(import.meta.resolve('@imgly/background-removal-node')))}/`,
  ).href;
  return (image: Buffer) =>
    imgly
      .removeBackground(new Blob([new Uint8Array(image)], { type: 'image/png' }), {
        publicPath,
        model: 'small',
        output: { format: 'image/png' },
      })
      .then((b) => b.arrayBuffer());
}

/** One scenario in this (child) process; prints one JSON line. */
async function scenario(kind: string, size: number): Promise<Record<string, unknown>> {
  const image = await scene(size);
  if (kind === 'rate-ours') {
    const s = await serverWith('nsfw', image);
    const rate = () => s.post('/image/rate', { mode: 'nsfw_sfw', urls: [s.imageId] });
    const sentAfterMs = s.sinceListening();
    const cold = await time(rate);
    const warm: number[] = [];
    for (let i = 0; i < RATE_WARM; i++) warm.push(await time(rate));
    await s.close();
    return { cold, sentAfterMs, warm: median(warm) };
  }
  if (kind === 'rate-bare') {
    const t0 = performance.now();
    const tf = await import('@tensorflow/tfjs');
    await import('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    await tf.ready();
    const nsfwjs = await import('nsfwjs');
    const model = await nsfwjs.load('MobileNetV2');
    // The same work per image as the service's: decode and scale to 224² RGB, classify.
    const classify = async () => {
      const pixels = await sharp(image).removeAlpha().resize(224, 224, { fit: 'fill' }).raw().toBuffer();
      const tensor = tf.tensor3d(new Uint8Array(pixels), [224, 224, 3], 'int32');
      await model.classify(tensor, 5);
      tensor.dispose();
    };
    await classify();
    const cold = performance.now() - t0;
    const warm: number[] = [];
    for (let i = 0; i < RATE_WARM; i++) warm.push(await time(classify));
    return { cold, warm: median(warm), backend: tf.getBackend() };
  }
  if (kind === 'background-ours') {
    const s = await serverWith('backgroundRemoval', image);
    const remove = async () => {
      const { data } = await s.post('/image/remove-background', { url: s.imageUrl });
      for (;;) {
        const status = (
          (await (await fetch(`${s.server.url}/tasks/${data.taskId}/status`, { headers: s.headers })).json()) as {
            data: { status: string };
          }
        ).data.status;
        if (status === 'completed') return;
        if (status !== 'pending') throw new Error(`the task ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const cold = await time(remove);
    const warm: number[] = [];
    for (let i = 0; i < BACKGROUND_WARM; i++) warm.push(await time(remove));
    await s.close();
    return { cold, warm: median(warm), maxRssKb: process.resourceUsage().maxRSS };
  }
  if (kind === 'background-bare') {
    const t0 = performance.now();
    const remove = await bareImgly();
    await remove(image);
    const cold = performance.now() - t0;
    const warm: number[] = [];
    for (let i = 0; i < BACKGROUND_WARM; i++) warm.push(await time(() => remove(image)));
    return { cold, warm: median(warm), maxRssKb: process.resourceUsage().maxRSS };
  }
  throw new Error(`unknown scenario ${kind}`);
}

function runChild(kind: string, size: number): Record<string, number> {
  const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'scenario', kind, String(size)], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (child.status !== 0) throw new Error(`${kind}: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!);
}

/** ROUNDS fresh processes of ours and of the anchor, interleaved; medians of each figure. */
function compare(kind: string, size: number) {
  const ours: Record<string, number>[] = [];
  const bare: Record<string, number>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(runChild(`${kind}-ours`, size));
    bare.push(runChild(`${kind}-bare`, size));
  }
  const pick = (rows: Record<string, number>[], key: string) => median(rows.map((row) => row[key]));
  return {
    ours: (key: string) => pick(ours, key),
    bare: (key: string) => pick(bare, key),
    all: (key: string) => ours.map((row) => Math.round(row[key])),
  };
}

/** p50/p99 of GET /tasks/{id}/status over 8 s, idle and then while background removal and rating run. */
async function apiUnderLoad() {
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const server: ChildProcess = spawn(
    process.execPath,
    ['bin/imgtask.js', '--data', data, 'serve', '--port', '0', '--json'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve) =>
    server.stdout!.on(
      'data',
      (chunk) => /"url": "([^"]+)"/.test(String(chunk)) && resolve(/"url": "([^"]+)"/.exec(String(chunk))![1]),
    ),
  );
  const cli = (...args: string[]) =>
    JSON.parse(
      spawnSync(process.execPath, ['bin/imgtask.js', '--data', data, ...args, '--json'], { encoding: 'utf8' }).stdout,
    );
  cli('accounts', 'create', 'bench', '--credit', '1000');
  const key = cli('keys', 'create', '--account', 'bench').raw;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await scene(1024))]), 'scene.png');
  const upload = (await (
    await fetch(`${url}/image/upload`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
      body: form,
    })
  ).json()) as {
    data: { files: { id: string; service_url: string }[] };
  };
  const { id: imageId, service_url: imageUrl } = upload.data.files[0];
  const taskId = (
    (await (
      await fetch(`${url}/image/generate`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'x' }) })
    ).json()) as { data: { taskId: string } }
  ).data.taskId;
  const status = () => autocannon({ url: `${url}/tasks/${taskId}/status`, headers, connections: 10, duration: 8 });
  await status(); // warm-up
  const idle = await status();
  // Background removals (one at a time in their lane) and a stream of ratings.
  for (let i = 0; i < 4; i++)
    await fetch(`${url}/image/remove-background`, { method: 'POST', headers, body: JSON.stringify({ url: imageUrl }) });
  let rating = true;
  const rater = (async () => {
    while (rating)
      await fetch(`${url}/image/rate`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ mode: 'nsfw_sfw', urls: [imageId, imageId], sync: true }),
      });
  })();
  await new Promise((resolve) => setTimeout(resolve, 3000)); // both models busy
  const busy = await status();
  rating = false;
  await rater;
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  await rm(data, { recursive: true, force: true });
  return { idle, busy };
}

if (process.argv[2] === 'scenario') {
  process.stdout.write(`${JSON.stringify(await scenario(process.argv[3], Number(process.argv[4] ?? 1024)))}\n`);
  process.exit(0); // an anchor's model threads (ORT, tfjs) need not be waited for
} else {
  const only = process.env.BENCH_ONLY;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `providers benchmark — node ${process.version}, ${(await import('node:os')).cpus().length} cores; medians of ${ROUNDS} fresh processes, ours and the bare library interleaved`,
  );
  if (!only || only === 'rate') {
    const r = compare('rate', 1024);
    console.log(
      `\nNSFW rating of a 1024² PNG: POST /image/rate (sync) vs sharp decode + 224² + nsfwjs MobileNetV2 classify (wasm), warm = median of ${RATE_WARM}`,
    );
    console.log(
      `warm  ours ${r.ours('warm').toFixed(1)} ms | bare ${r.bare('warm').toFixed(1)} ms | ratio ${(r.ours('warm') / r.bare('warm')).toFixed(2)}`,
    );
    console.log(
      `cold  ours ${r.ours('cold').toFixed(0)} ms (first request, sent ${r.ours('sentAfterMs').toFixed(0)} ms after listening; rounds ${r.all('cold').join(', ')}) | bare ${r.bare('cold').toFixed(0)} ms (import + load + first classify) | ratio ${(r.ours('cold') / r.bare('cold')).toFixed(2)}`,
    );
  }
  if (!only || only === 'background') {
    console.log(
      `\nBackground removal (ISNet small, onnxruntime sequential, 2 threads): POST /image/remove-background until completed vs imgly removeBackground, warm = median of ${BACKGROUND_WARM}`,
    );
    console.log('size | ours: cold / warm   peak RSS | bare: cold / warm   peak RSS | warm ratio | cold ratio');
    for (const size of [512, 1024]) {
      const b = compare('background', size);
      console.log(
        `${String(size).padEnd(4)} | ${s(b.ours('cold'))} / ${s(b.ours('warm'))}  ${mb(b.ours('maxRssKb'))} | ${s(b.bare('cold'))} / ${s(b.bare('warm'))}  ${mb(b.bare('maxRssKb'))} | ${(b.ours('warm') / b.bare('warm')).toFixed(3)} | ${(b.ours('cold') / b.bare('cold')).toFixed(2)}`,
      );
    }
  }
  if (!only || only === 'comfyui') await comfyuiBench();
  if (!only || only === 'status') {
    const { idle, busy } = await apiUnderLoad();
    console.log('\nGET /tasks/{id}/status, 10 connections, 8 s:');
    console.log(
      `idle                            ${Math.round(idle.requests.average)} req/s  p50 ${idle.latency.p50} ms  p99 ${idle.latency.p99} ms`,
    );
    console.log(
      `models busy (bg removal+rating) ${Math.round(busy.requests.average)} req/s  p50 ${busy.latency.p50} ms  p99 ${busy.latency.p99} ms`,
    );
  }
}
