/**
 * Web console benchmark (not a test). One imgtask server (the file store, a child process) whose
 * account holds 10,000 images, each figure beside the API's own figure measured in the same run:
 *  - the gallery page (`GET /console/gallery`, 48 thumbnails of the newest tasks; then a page
 *    5,000 tasks deep through its cursor) against `GET /tasks?limit=50` with an API key over the
 *    same tasks (first page; the same depth): p50/p99 of 200 requests one at a time (page and
 *    anchor interleaved), then requests/s at 8 connections (autocannon) with the server's own CPU
 *    time per request (GET /bench/cpu: process.cpuUsage, so a busy machine does not skew the
 *    ratio); target: the gallery ≤ 2 × the list's time;
 *  - the console's first load: the HTML of `/console` and every asset it links, cold (no cache)
 *    and cached (assets are immutable: the HTML only; or revalidated with If-None-Match);
 *  - a thumbnail cold (read, resize to 320 px, webp) and warm (the LRU; a 304), against serving
 *    the original image (`GET /images/<file>`).
 *
 * Seeding (a few seconds): 32 real 1024×1024 images are drawn with sharp and stored through the
 * service's image library; then 10,000 settled `image.generate` tasks (one image each, the 32
 * files reused in turn, every 4th rated) are written through the store's own create and settle
 * (what the engine writes for a finished task, with no webhook event), a minute apart up to now,
 * 500 at a time: no provider runs. The server is then closed and started again on that data dir,
 * as a server holding them starts (snapshot written, nothing left to write while measured).
 *
 *   npm run bench:console            BENCH_REQUESTS=200 BENCH_SECONDS=3 BENCH_IMAGES=10000
 *                                    BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (the server's node flags)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_NODE_ARGS, startChild, stopChild } from './fixtures/child.js';

const SELF = import.meta.filename;
const IMAGES = Number(process.env.BENCH_IMAGES ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const FILES = 32;
const CONNECTIONS = 8;

// ---------------------------------------------------------------- the server, seeded
async function benchServer(dataDir: string): Promise<void> {
  const [{ startServer }, { loadConfig }, { runAdminOp }, { sortableId }, { default: sharp }] = await Promise.all([
    import('../../src/app/server.js'),
    import('../../src/config/load.js'),
    import('../../src/app/admin/ops.js'),
    import('../../src/domain/ids.js'),
    import('sharp'),
  ]);
  const config = loadConfig({
    env: {},
    overrides: { server: { port: 0, host: '127.0.0.1' }, embedded: { preload: false } },
  });
  const open = () =>
    startServer({
      dataDir,
      config,
      log: () => undefined,
      // The server's own CPU time (user + system, µs), so a figure can be told per request whatever else the machine
      // runs.
      extendApi: (app) => app.get('/bench/cpu', (c) => c.json(process.cpuUsage())),
    });
  const seeding = await open();
  const { services } = seeding;
  const { store } = services;
  const began = performance.now();
  const account = await services.accounts.create('bench', 1_000_000 * 1_000_000);
  const { raw, apiKey } = await services.apiKeys.create({ accountId: account.id, name: 'bench' });

  // A few real images, as the placeholder model draws them (1024×1024 webp): gradients of different hues.
  const files: { id: string; url: string }[] = [];
  for (let f = 0; f < FILES; f++) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="hsl(${(f * 360) / FILES},70%,45%)"/><stop offset="1" stop-color="hsl(${(f * 360) / FILES + 120},60%,70%)"/></linearGradient></defs><rect width="1024" height="1024" fill="url(#g)"/><circle cx="${300 + f * 12}" cy="480" r="220" fill="#fff" fill-opacity="0.35"/><text x="80" y="900" font-size="96" font-family="sans-serif" fill="#111">bench ${f}</text></svg>`;
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const stored = await services.images.saveEncoded(png, 'webp', 80);
    files.push({ id: stored.id, url: stored.serviceUrl });
  }

  // The tasks, oldest first (ids sort by time), a minute apart, ending now.
  const start = Date.now() - IMAGES * 60_000;
  const ids: string[] = [];
  const write = async (n: number) => {
    const at = new Date(start + n * 60_000).toISOString();
    const id = sortableId('tsk', start + n * 60_000);
    const file = files[n % FILES];
    const image: Record<string, unknown> = {
      status: 'success',
      id: file.id,
      url: file.url,
      service_url: file.url,
      size: '1024x1024',
      cost: '0.001',
      seed: n,
    };
    if (n % 4 === 0) image.rating = { status: 'success', level: n % 8 === 0 ? 'nsfw' : 'sfw' };
    const request = {
      prompt: `bench image ${n}: a lighthouse on a cliff at dawn, oil painting`,
      model: 'placeholder',
      size: 'square',
      count: 1,
      metadata: { n: String(n) },
    };
    await store.tasks.create(
      {
        id,
        type: 'image.generate',
        status: 'pending',
        accountId: account.id,
        apiKeyId: apiKey.id,
        request,
        items: [{ status: 'pending' }],
        estimate: 1000,
        cost: 0,
        result: null,
        createdAt: at,
        updatedAt: at,
      },
      {},
    );
    const settled = { model: 'placeholder', images: [image] };
    await store.tasks.settle({
      id,
      status: 'completed',
      result: settled,
      cost: 1000,
      at,
      lastItem: { index: 0, item: { status: 'success', cost: 1000, result: image, attempts: 1 } },
      noEvent: true,
    });
    ids[n] = id;
  };
  // Batches of 500 at once: the journal commits each batch in a few group writes.
  for (let n = 0; n < IMAGES; n += 500)
    await Promise.all(Array.from({ length: Math.min(500, IMAGES - n) }, (_, i) => write(n + i)));
  const seededSeconds = ((performance.now() - began) / 1000).toFixed(1);

  // Restarted on what was written, as a server holding 10,000 images starts: the store snapshotted and loaded, nothing
  // left to write while measured.
  await seeding.close();
  const server = await open();
  const link = await runAdminOp(server.services.admin, 'console.link', { account: 'bench' });
  const deep = ids[Math.floor(IMAGES / 2)];
  const info = {
    url: server.url,
    key: raw,
    link: link.url,
    deep,
    seededSeconds,
    files: files.map((f) => new URL(f.url).pathname),
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

// ---------------------------------------------------------------- the driver
interface Timing {
  p50: number;
  p99: number;
  mean: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

/** Times `once` `count` times, one at a time (after 20 unmeasured), in ms. */
async function timed(count: number, once: (i: number) => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < 20; i++) await once(i);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await once(i);
    samples.push(performance.now() - t);
  }
  return timing(samples);
}

/** One GET, its body read; fails on an unexpected status. */
async function get(
  url: string,
  headers: Record<string, string>,
  expect = 200,
): Promise<{ bytes: number; headers: Headers; text: () => string }> {
  const res = await fetch(url, { headers, redirect: 'manual' });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== expect)
    throw new Error(`${url}: ${res.status}, expected ${expect}: ${body.toString().slice(0, 200)}`);
  return { bytes: body.byteLength, headers: res.headers, text: () => body.toString() };
}

/** The server's CPU time so far, in ms. */
async function serverCpu(url: string): Promise<number> {
  const used = (await (await fetch(`${url}/bench/cpu`)).json()) as { user: number; system: number };
  return (used.user + used.system) / 1000;
}

/**
 * Requests/s at CONNECTIONS connections for SECONDS (after a 1 s warm-up), and the server's CPU ms per request
 * meanwhile.
 */
async function cannon(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ perSecond: number; cpuMs: number }> {
  await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: 1 });
  const before = await serverCpu(base);
  const result = await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: SECONDS });
  const cpu = (await serverCpu(base)) - before;
  if (result.non2xx + result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { perSecond: result['2xx'] / result.duration, cpuMs: cpu / result['2xx'] };
}

/** One page against its anchor: one at a time, then at load. */
interface Pair {
  label: string;
  anchorLabel: string;
  anchor: Timing & { perSecond: number; cpuMs: number };
  page: Timing & { perSecond: number; cpuMs: number };
}

async function pair(
  base: string,
  label: string,
  path: string,
  headers: Record<string, string>,
  anchorLabel: string,
  anchorPath: string,
  anchorHeaders: Record<string, string>,
): Promise<Pair> {
  // One at a time, interleaved (anchor, page, anchor, …) so both see the same moments of a busy machine.
  const anchorSamples: number[] = [];
  const pageSamples: number[] = [];
  const sample = async (into: number[], once: () => Promise<unknown>) => {
    const t = performance.now();
    await once();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < 50 + REQUESTS; i++) {
    await sample(anchorSamples, () => get(`${base}${anchorPath}`, anchorHeaders));
    await sample(pageSamples, () => get(`${base}${path}`, headers));
  }
  const anchorTiming = timing(anchorSamples.slice(50));
  const pageTiming = timing(pageSamples.slice(50));
  const anchorLoad = await cannon(base, anchorPath, anchorHeaders);
  const pageLoad = await cannon(base, path, headers);
  return { label, anchorLabel, anchor: { ...anchorTiming, ...anchorLoad }, page: { ...pageTiming, ...pageLoad } };
}

async function drive(): Promise<void> {
  const began = performance.now();
  const progress = (line: string) =>
    process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);
  progress(`seeding ${IMAGES.toLocaleString('en-US')} images…`);
  const data = await mkdtemp(join(tmpdir(), 'imgtask-bench-console-'));
  const child = await startChild(SELF, ['--server', data], BENCH_NODE_ARGS);
  const info = JSON.parse(child.line) as {
    url: string;
    key: string;
    link: string;
    deep: string;
    seededSeconds: string;
    files: string[];
  };
  const { url } = info;
  progress(`seeded in ${info.seededSeconds} s`);
  try {
    const signIn = await fetch(info.link, { redirect: 'manual' });
    const cookie = /imgtask_console=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0];
    if (!cookie) throw new Error('the sign-in link set no cookie');
    const session = { cookie };
    const api = { authorization: `Bearer ${info.key}` };

    progress('the gallery against GET /tasks?limit=50');
    const first = await get(`${url}/console/gallery`, session);
    const tiles = (first.text().match(/class="tile"/g) ?? []).length;
    if (tiles !== 48) throw new Error(`the gallery's first page shows ${tiles} tiles`);
    const deepTasks = `${(IMAGES / 2).toLocaleString('en-US')} tasks deep`;
    const pairs = [
      await pair(
        url,
        'GET /console/gallery (newest 48 images)',
        '/console/gallery',
        session,
        'GET /tasks?limit=50 (API key)',
        '/tasks?limit=50',
        api,
      ),
      await pair(
        url,
        `GET /console/gallery?cursor=… (${deepTasks})`,
        `/console/gallery?cursor=${info.deep}`,
        session,
        'GET /tasks?limit=50&cursor=… (the same)',
        `/tasks?limit=50&cursor=${info.deep}`,
        api,
      ),
    ];

    progress('the first load of /console');
    const html = await get(`${url}/console`, session);
    const assets = [
      ...new Set([...html.text().matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1])),
    ];
    const etags = new Map<string, string>();
    let assetBytes = 0;
    for (const asset of assets) {
      const res = await get(`${url}${asset}`, {});
      etags.set(asset, res.headers.get('etag') ?? '');
      assetBytes += res.bytes;
    }
    // A browser fetches the page, then its assets at once: cold, every byte; cached, the page alone (assets are
    // immutable) or the page and a 304 for each.
    const cold = await timed(50, async () => {
      await get(`${url}/console`, session);
      await Promise.all(assets.map((asset) => get(`${url}${asset}`, {})));
    });
    const cachedHtml = await timed(50, () => get(`${url}/console`, session));
    const revalidated = await timed(50, async () => {
      await get(`${url}/console`, session);
      await Promise.all(assets.map((asset) => get(`${url}${asset}`, { 'if-none-match': etags.get(asset)! }, 304)));
    });
    const galleryHtml = await timed(50, () => get(`${url}/console/gallery`, session));
    const listAnchor = pairs[0].anchor;

    progress('thumbnails');
    const thumbs = [
      ...new Set(
        [...first.text().matchAll(/src="(\/console\/thumbs\/[^"]+)"/g)].map((m) => m[1].replaceAll('&amp;', '&')),
      ),
    ];
    // The first page's 48 tiles cycle through the 32 files: the first 32 are 32 distinct images, each resized once
    // here.
    const distinct = thumbs.slice(0, FILES);
    const coldSamples: number[] = [];
    let thumbBytes = 0;
    for (const path of distinct) {
      const t = performance.now();
      const res = await get(`${url}${path}`, session);
      coldSamples.push(performance.now() - t);
      thumbBytes += res.bytes;
      if (res.headers.get('x-thumbnail') !== 'resized') throw new Error(`${path} was not resized cold`);
    }
    const thumbCold = timing(coldSamples);
    const thumbWarm = await timed(REQUESTS, async (i) => {
      const res = await get(`${url}${distinct[i % distinct.length]}`, session);
      if (res.headers.get('x-thumbnail') !== 'cached') throw new Error('a warm thumbnail was resized again');
    });
    const etagOf = new Map<string, string>();
    for (const path of distinct) etagOf.set(path, (await get(`${url}${path}`, session)).headers.get('etag')!);
    const thumb304 = await timed(REQUESTS, (i) =>
      get(
        `${url}${distinct[i % distinct.length]}`,
        { ...session, 'if-none-match': etagOf.get(distinct[i % distinct.length])! },
        304,
      ),
    );
    let originalBytes = 0;
    for (const file of info.files) originalBytes += (await get(`${url}${file}`, {})).bytes;
    const original = await timed(REQUESTS, (i) => get(`${url}${info.files[i % info.files.length]}`, {}));

    const ms = (n: number) => n.toFixed(2);
    const x = (a: number, b: number) => `${(a / b).toFixed(2)} ×`;
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    const int = (n: number) => Math.round(n).toLocaleString('en-US');
    console.log(
      `console benchmark — node ${process.version}, ${cpus().length} cores, file store, ${IMAGES.toLocaleString('en-US')} images (seeded in ${info.seededSeconds} s)`,
    );
    console.log(
      `one at a time: ${REQUESTS} requests after 20 unmeasured (page and anchor interleaved, after 50 each); at load: autocannon, ${CONNECTIONS} connections, ${SECONDS} s, with the server's CPU time per request\n`,
    );
    console.log('| page | p50 ms | p99 ms | mean ms | × anchor (mean) | req/s | server CPU ms/req | × anchor (CPU) |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const p of pairs) {
      const a = p.anchor;
      const g = p.page;
      console.log(
        `| anchor: ${p.anchorLabel} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(a.mean)} | 1.00 × | ${int(a.perSecond)} | ${ms(a.cpuMs)} | 1.00 × |`,
      );
      console.log(
        `| ${p.label} | ${ms(g.p50)} | ${ms(g.p99)} | ${ms(g.mean)} | ${x(g.mean, a.mean)} | ${int(g.perSecond)} | ${ms(g.cpuMs)} | ${x(g.cpuMs, a.cpuMs)} |`,
      );
    }
    console.log('\n| first load and thumbnails (one at a time) | p50 ms | p99 ms | mean ms | × anchor (mean) |');
    console.log('|---|---|---|---|---|');
    const row = (label: string, t: Timing, anchor: Timing) =>
      console.log(`| ${label} | ${ms(t.p50)} | ${ms(t.p99)} | ${ms(t.mean)} | ${x(t.mean, anchor.mean)} |`);
    row('anchor: GET /tasks?limit=50 (API key)', listAnchor, listAnchor);
    row(
      `/console cold: HTML (${kb(html.bytes)}) + ${assets.length} assets (${kb(assetBytes)}), no cache`,
      cold,
      listAnchor,
    );
    row('/console cached: the HTML only (assets are immutable)', cachedHtml, listAnchor);
    row(`/console revalidated: the HTML + ${assets.length} × 304`, revalidated, listAnchor);
    row(`/console/gallery cached: the HTML only (${kb(first.bytes)})`, galleryHtml, listAnchor);
    row(`anchor: GET /images/<file>, the original (${kb(originalBytes / info.files.length)} each)`, original, original);
    row(
      `thumbnail cold: read, resize 1024 → 320, webp (${kb(thumbBytes / distinct.length)} each; ${distinct.length} images)`,
      thumbCold,
      original,
    );
    row('thumbnail warm: from the in-memory LRU', thumbWarm, original);
    row('thumbnail with If-None-Match: 304', thumb304, original);
    console.log('\ntarget: the gallery page ≤ 2 × GET /tasks?limit=50 for the same tasks');
    for (const p of pairs) {
      const byTime = p.page.mean / p.anchor.mean;
      const byCpu = p.page.cpuMs / p.anchor.cpuMs;
      console.log(
        `  ${p.label}: ${byTime.toFixed(2)} × one at a time (${byTime <= 2 ? 'met' : 'NOT met'}); ${byCpu.toFixed(2)} × in server CPU at load (${byCpu <= 2 ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    await stopChild(child.child, 20_000);
    await rm(data, { recursive: true, force: true });
    progress('done');
  }
}

if (process.argv[2] === '--server') await benchServer(process.argv[3]);
else await drive();
