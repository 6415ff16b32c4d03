/**
 * Embedded review benchmark (not a test), through the HTTP API as a user sees it: a real server
 * (`startServer`, temp data dir, an account and API key made through `server.services`, the
 * image uploaded) with the embedded nsfw model and OCR, answering POST /image/review (sync) for a
 * 1024×1024 photo-like image:
 *  - the default checks (resolution, sharp focus, exposure, safe for work);
 *  - the same with the criterion "no text", which adds an OCR read.
 * Anchors, in the same run and on the same image: the bare measurements (sharp decode + the
 * quality functions of src/media/quality.ts), the bare embedded nsfw rater call, and the bare OCR
 * read. Each figure is the median of RUNS warm calls (after warm-up calls that load the models).
 *
 *   npm run bench:review          (about a minute)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARM_UP = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** A photo-like scene: gradients, shapes and deterministic noise (as scripts/bench/providers.ts). */
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

/** Median ms of `call` over RUNS runs, after WARM_UP untimed ones. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function main(): Promise<void> {
  const { startServer } = await import('../../src/app/server.js');
  const { loadConfig } = await import('../../src/config/load.js');
  const { measureQuality } = await import('../../src/media/quality.js');
  const { createEmbeddedNsfwRater } = await import('../../src/providers/embedded/nsfw/rater.js');
  const { createBasicAltWriter } = await import('../../src/providers/embedded/alt/describer.js');
  const { NSFW_LEVELS } = await import('../../src/domain/rating.js');

  const image = await scene(1024);
  const source = { data: image, format: 'png' as const, width: 1024, height: 1024 };
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-'));
  const embedded = {
    nsfw: { enabled: true, timeoutMs: 60_000 },
    backgroundRemoval: { enabled: false, model: 'small', threads: 2, timeoutMs: 120_000 },
    altText: { enabled: true, ocr: true },
  };
  const config = loadConfig({
    env: {},
    overrides: { server: { host: '127.0.0.1', port: 0 }, log: { level: 'silent' }, embedded },
  });
  const server = await startServer({ dataDir: data, config });
  const rater = createEmbeddedNsfwRater({ timeoutMs: 60_000 });
  const reader = createBasicAltWriter({ ocr: true });
  try {
    const account = await server.services.accounts.create('bench', 1_000 * 1_000_000);
    const { raw } = await server.services.apiKeys.create({ accountId: account.id, name: 'bench' });
    const headers = { authorization: `Bearer ${raw}`, 'content-type': 'application/json' };
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(image)]), 'scene.png');
    const uploaded = await fetch(`${server.url}/image/upload`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
      body: form,
    });
    const [file] = ((await uploaded.json()) as { data: { files: { id: string }[] } }).data.files;
    const review = (criteria?: string[]) => async () => {
      const res = await fetch(`${server.url}/image/review`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: file.id, ...(criteria ? { criteria } : {}), access: { pat: { enabled: false } } }),
      });
      const body = (await res.json()) as { data?: { result?: { verdict: string } } };
      if (res.status !== 200 || !body.data?.result)
        throw new Error(`review answered ${res.status}: ${JSON.stringify(body)}`);
    };
    const signal = new AbortController().signal;

    const reviewMs = await timed(review());
    const noTextMs = await timed(review(['no text']));
    const measureMs = await timed(() => measureQuality(image));
    const nsfwMs = await timed(() => rater.rate(source, { mode: 'nsfw_sfw', levels: [...NSFW_LEVELS] }, signal));
    const ocrMs = await timed(() => reader.read(source, signal));

    console.log(
      `review benchmark — node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); 1024×1024 PNG; medians of ${RUNS} warm runs`,
    );
    console.log(`  POST /image/review (default checks)        ${ms(reviewMs)}`);
    console.log(`  POST /image/review + "no text" (OCR)        ${ms(noTextMs)}`);
    console.log(`  bare: sharp decode + quality measurements   ${ms(measureMs)}`);
    console.log(`  bare: embedded nsfw rater                   ${ms(nsfwMs)}`);
    console.log(`  bare: embedded OCR read                     ${ms(ocrMs)}`);
    console.log(`  review ÷ (measurements + nsfw)              ${(reviewMs / (measureMs + nsfwMs)).toFixed(2)}×`);
    console.log(
      `  review "no text" ÷ (measurements + nsfw + OCR) ${(noTextMs / (measureMs + nsfwMs + ocrMs)).toFixed(2)}× (they run in parallel in a review)`,
    );
  } finally {
    await Promise.all([rater.close(), reader.close()]);
    await server.close();
    await rm(data, { recursive: true, force: true });
  }
}

await main();
