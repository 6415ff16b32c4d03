import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { ProviderError } from '../../../src/domain/task-status.js';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import type { VideoGenerator, VideoParams } from '../../../src/providers/provider-types.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';
import { startReceiver } from '../../helpers/receiver.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { decodeVideo, mp4Boxes, webpAnimation, webpFrames } from '../../helpers/video-check.js';

const run = promisify(execFile);

/** Small frames keep the real encoder fast: the placeholder model capped at 320x180, native 160x90. */
const SMALL = {
  fetch: { allowPrivateAddresses: true },
  videoModels: {
    placeholder: {
      provider: 'placeholder',
      price: { perSecond: '0.002', perInput: '0.0005' },
      capabilities: {
        maxInputs: 1,
        negativePrompt: true,
        maxDurationS: 10,
        maxFps: 30,
        maxSize: '320x180',
        nativeSize: '160x90',
      },
    },
  },
};

const create = (h: Harness, body: Record<string, unknown>, auth = h.apiKey) =>
  h.request('POST', '/video/generate', { auth, body: { prompt: 'a red fox running through snow', ...body } });

async function video(h: Harness, body: Record<string, unknown>) {
  const res = await create(h, body);
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 30_000);
}

/** The mean RGB of a clip's first frame, decoded by the bundled ffmpeg. */
async function firstFrameMean(mp4: Buffer): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'frame-'));
  try {
    await writeFile(join(dir, 'in.mp4'), mp4);
    const { stdout } = await run(
      bundledFfmpegPath(),
      ['-v', 'error', '-i', join(dir, 'in.mp4'), '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', '-'],
      { encoding: 'buffer' },
    );
    return (await sharp(stdout).stats()).channels.slice(0, 3).map((c) => c.mean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const download = async (url: string) => {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return { type: res.headers.get('content-type'), data: Buffer.from(await res.arrayBuffer()) };
};

test('a video task answers 201 with the estimate and a PAT, and makes a playable H.264 MP4', async (t) => {
  const h = await startService(t, { config: SMALL });
  const res = await create(h, { duration_s: 2, fps: 12, metadata: { shot: 'fox' } });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.data.estimatedCost, '0.004', '0.002 per second × 2 s');
  assert.match(res.json.data.access.publicAccessToken, /^pat_/);
  const task = await waitForTask(h, res.json.data.taskId, 30_000);
  assert.equal(task.status, 'completed');
  assert.equal(task.type, 'video.generate');
  assert.equal(task.cost, '0.004');
  assert.deepEqual(task.metadata, { shot: 'fox' });
  assert.equal(task.result.model, 'placeholder');
  const [item] = task.result.videos;
  assert.equal(item.status, 'success');
  assert.match(item.id, /^vid_[0-9A-Za-z]{22}$/);
  assert.equal(item.url, item.service_url);
  assert.equal(item.service_url, `${h.url}/videos/${item.id}.mp4`);
  assert.deepEqual([item.size, item.duration_s, item.fps, item.format, item.cost], ['160x90', 2, 12, 'mp4', '0.004']);
  const { type, data } = await download(item.service_url);
  assert.equal(type, 'video/mp4');
  const boxes = mp4Boxes(data);
  assert.equal(boxes[0], 'ftyp');
  assert.ok(boxes.indexOf('moov') < boxes.indexOf('mdat'), `moov before mdat (fast start): ${boxes}`);
  const decoded = await decodeVideo(data);
  assert.deepEqual([decoded.width, decoded.height, decoded.frames], [160, 90, 24], 'a real decoder reads every frame');
  assert.equal((await accountOf(h)).balance, '99.996');
});

test('format webp makes an animated WebP: one page per frame, each shown 1000/fps ms, looping', async (t) => {
  const h = await startService(t, { config: SMALL });
  const task = await video(h, { duration_s: 1, fps: 8, format: 'webp', size: '1:1' });
  const [item] = task.result.videos;
  assert.deepEqual(
    [item.status, item.format, item.size, item.duration_s, item.fps],
    ['success', 'webp', '180x180', 1, 8],
    'a 1:1 frame fits the 320x180 cap',
  );
  assert.match(item.service_url, /\/videos\/vid_[0-9A-Za-z]{22}\.webp$/);
  const { type, data } = await download(item.service_url);
  assert.equal(type, 'image/webp');
  const animation = await webpAnimation(data);
  assert.equal(animation.pages, 8);
  assert.deepEqual(animation.delay, Array(8).fill(125));
  assert.equal(animation.loop, 0);
});

test('count makes that many distinct videos, each charged; a first frame is taken from the input image', async (t) => {
  const h = await startService(t, { config: SMALL });
  const url = await serveFiles(t, { '/first.png': await makeImage({ width: 200, height: 100, rgb: [250, 40, 40] }) });
  const task = await video(h, { count: 2, duration_s: 1, fps: 8, inputs: [url('/first.png')] });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.videos.length, 2);
  const [a, b] = task.result.videos;
  assert.notEqual(a.id, b.id);
  assert.equal(a.cost, '0.0025', '0.002 × 1 s + 0.0005 for the input');
  assert.equal(task.cost, '0.005');
  const [r, g, bl] = await firstFrameMean((await download(a.service_url)).data);
  assert.ok(r > 180 && g < 110 && bl < 110, `the first frame is the red input image (mean ${[r, g, bl]})`);
});

test('bad requests: schema rejections in the /image/* shape, model limits as VALIDATION_ERROR, nothing reserved', async (t) => {
  const h = await startService(t, {
    config: {
      ...SMALL,
      videoModels: {
        ...SMALL.videoModels,
        plain: {
          provider: 'placeholder',
          price: { perSecond: '0.001' },
          capabilities: {
            maxInputs: 0,
            negativePrompt: false,
            maxDurationS: 3,
            maxFps: 12,
            maxSize: '320x180',
            nativeSize: '160x90',
          },
        },
      },
    },
  });
  for (const body of [
    { count: 5 },
    { count: 0 },
    { duration_s: 11 },
    { duration_s: 1.5 },
    { fps: 7 },
    { fps: 31 },
    { model: 'nope' },
    { size: '16:9_4k' },
    { format: 'gif' },
    { inputs: ['a', 'b'] },
    { prompt: '' },
  ]) {
    const res = await create(h, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.success, false, JSON.stringify(body));
    assert.ok(Array.isArray(res.json.error), JSON.stringify(body));
  }
  const limits: Array<[Record<string, unknown>, RegExp]> = [
    [{ model: 'plain', duration_s: 4 }, /at most 3 s/],
    [{ model: 'plain', duration_s: 1, fps: 24 }, /at most 12 frames per second/],
    [{ model: 'plain', duration_s: 1, fps: 8, inputs: ['img_0000000000000000000000'] }, /no input image/],
    [{ model: 'plain', duration_s: 1, fps: 8, negative_prompt: 'blur' }, /negative_prompt/],
    [{ destination: 'nowhere' }, /no destination named "nowhere"/],
  ];
  for (const [body, message] of limits) {
    const res = await create(h, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    assert.match(res.json.message, message);
  }
  assert.equal((await accountOf(h)).reserved, '0');
});

test('the scope video:generate is required; access tokens may create, PATs may not', async (t) => {
  const h = await startService(t, { config: SMALL });
  const narrow = await h.server.services.apiKeys.create({ accountId: h.accountId, scopes: ['image:generate'] });
  const refused = await create(h, {}, narrow.raw);
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, 'INSUFFICIENT_SCOPE');
  const byToken = await create(h, { duration_s: 1, fps: 8 }, h.token);
  assert.equal(byToken.status, 201);
  const pat = byToken.json.data.access.publicAccessToken;
  const byPat = await create(h, {}, pat);
  assert.equal(byPat.status, 401, 'a PAT only reads its own task');
  assert.equal(byPat.json.code, 'UNAUTHORIZED');
  const viaPat = await h.request('GET', `/tasks/${byToken.json.data.taskId}/result`, { auth: pat });
  assert.equal(viaPat.status, 200);
  assert.equal(viaPat.json.data.type, 'video.generate');
});

/** A video provider that fails with `code` on every call, counting them. */
function failingVideo(code: 'PROVIDER_ERROR' | 'RESTRICTED_CONTENT'): VideoGenerator & { calls: VideoParams[] } {
  const calls: VideoParams[] = [];
  return {
    calls,
    async generate(params) {
      calls.push(params);
      throw new ProviderError(code, `the video provider says ${code}`);
    },
  };
}

test('a video that keeps failing is an item failure after 3 attempts: the task completes, nothing is charged', async (t) => {
  const flaky = failingVideo('PROVIDER_ERROR');
  const h = await startService(t, { config: SMALL, providers: { ...fakeProviders(), videoGenerator: () => flaky } });
  const task = await video(h, { duration_s: 1, fps: 8 });
  assert.equal(task.status, 'completed', 'SPEC part 3 rule 1: item failures leave the task completed');
  assert.deepEqual(task.result.videos, [
    { status: 'failed', error: { code: 'PROVIDER_ERROR', message: 'the video provider says PROVIDER_ERROR' } },
  ]);
  assert.equal(flaky.calls.length, 3, 'SPEC part 7: 3 attempts per video');
  assert.equal(task.cost, '0');
  assert.equal((await accountOf(h)).balance, '100');

  const refusing = failingVideo('RESTRICTED_CONTENT');
  const h2 = await startService(t, {
    config: SMALL,
    providers: { ...fakeProviders(), videoGenerator: () => refusing },
  });
  const refused = await video(h2, { duration_s: 1, fps: 8 });
  assert.equal(refused.result.videos[0].error.code, 'RESTRICTED_CONTENT');
  assert.equal(refusing.calls.length, 1, 'a refusal is not retried');
});

test('the provider is asked for the planned frame size, duration, fps, format and prompt', async (t) => {
  const seen: VideoParams[] = [];
  const recording: VideoGenerator = {
    async generate(params) {
      seen.push(params);
      throw new ProviderError('RESTRICTED_CONTENT', 'recorded');
    },
  };
  const h = await startService(t, {
    config: SMALL,
    providers: { ...fakeProviders(), videoGenerator: () => recording },
  });
  await video(h, { duration_s: 3, fps: 10, size: '9:16', format: 'webp', negative_prompt: 'rain' });
  const [params] = seen;
  assert.deepEqual(
    [params.width, params.height, params.durationS, params.fps, params.format],
    [180, 318, 3, 10, 'webp'],
    '9:16 fitted under 180x320 (the portrait transpose of the cap), even sides',
  );
  assert.equal(params.prompt, 'a red fox running through snow');
  assert.equal(params.negativePrompt, 'rain');
});

test('events, listing, estimate and the video model list', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, { config: { ...SMALL, webhooks: { allowPrivateAddresses: true } } });
  const task = await video(h, {
    duration_s: 1,
    fps: 8,
    webhook: { custom: [{ url: receiver.url('/hook') }] },
    metadata: { ref: 7 },
  });
  const [event] = await receiver.waitFor(1);
  assert.equal(event.json.type, 'task.video.generate.completed');
  assert.equal(event.json.data.taskId, task.id);
  assert.deepEqual(event.json.data.metadata, { ref: 7 });
  assert.equal(event.json.data.result.videos[0].id, task.result.videos[0].id);

  await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'an image, not a video' } });
  const listed = await h.request('GET', '/tasks?type=video.generate', { auth: h.apiKey });
  assert.deepEqual(
    listed.json.data.map((x: { id: string }) => x.id),
    [task.id],
  );

  const estimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'video.generate', request: { prompt: 'x', duration_s: 5, count: 2 } },
  });
  assert.equal(estimate.status, 200, estimate.text);
  assert.deepEqual(estimate.json.data, {
    type: 'video.generate',
    estimatedCost: '0.02',
    items: ['0.01', '0.01'],
    currency: 'USD',
  });

  const models = await h.request('GET', '/video/models', { auth: h.apiKey });
  assert.equal(models.status, 200);
  assert.deepEqual(models.json.data[0], {
    id: 'placeholder',
    default: true,
    price: { perSecond: '0.002', perInput: '0.0005' },
    capabilities: {
      maxInputs: 1,
      negativePrompt: true,
      maxDurationS: 10,
      maxFps: 30,
      maxSize: '320x180',
      nativeSize: '160x90',
    },
  });
});

test('a destination receives each video under its key, with the video content type', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t, {
    config: { ...SMALL, destinations: { allowPrivateAddresses: true, local: { allowedRoots: [root] } } },
  });
  const made = await h.request('POST', '/destinations', {
    auth: h.token,
    body: {
      name: 'clips',
      provider: { id: 'local' },
      config: { path: join(root, 'clips'), keyTemplate: 'v/{taskId}/{imageId}.{ext}' },
    },
  });
  assert.equal(made.status, 201, made.text);
  const task = await video(h, { duration_s: 1, fps: 8, destination: 'clips' });
  const [item] = task.result.videos;
  assert.deepEqual(item.destination, {
    name: 'clips',
    status: 'success',
    key: `v/${task.id}/${item.id}.mp4`,
    url: null,
  });
  assert.equal(item.url, null, 'delivered to a destination without a public URL');
  const written = await readFile(join(root, 'clips', item.destination.key));
  assert.deepEqual(written, (await download(item.service_url)).data, 'the same bytes as the service copy');
});

test('a provider with no capacity makes the video fail PROVIDERS_BUSY after its attempts; an unreadable first frame fails the task INVALID_INPUT', async (t) => {
  let asked = 0;
  const full: VideoGenerator = {
    busy: () => true,
    async generate() {
      asked += 1;
      throw new Error('a busy provider is never asked');
    },
  };
  const h = await startService(t, { config: SMALL, providers: { ...fakeProviders(), videoGenerator: () => full } });
  const task = await video(h, { duration_s: 1, fps: 8 });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.videos[0].error.code, 'PROVIDERS_BUSY');
  assert.equal(asked, 0);

  const url = await serveFiles(t, { '/broken.png': 'not an image' });
  const broken = await video(h, { duration_s: 1, fps: 8, inputs: [url('/broken.png')] });
  assert.equal(
    broken.status,
    'failed',
    'the first frame is prepared once for the task: it fails the task, as image inputs do',
  );
  assert.equal(broken.errors[0].code, 'INVALID_INPUT');
  assert.equal((await accountOf(h)).balance, '100');
  assert.equal((await accountOf(h)).reserved, '0');
});

test('seed: video i is made with seed + i and reports it; the same seed gives the same file; without one a random seed is chosen', async (t) => {
  const h = await startService(t, { config: SMALL });
  const body = { count: 2, duration_s: 1, fps: 8, format: 'webp', seed: 7 };
  const first = await video(h, body);
  assert.deepEqual(
    first.result.videos.map((item: { seed: number }) => item.seed),
    [7, 8],
  );
  const again = await video(h, { ...body, count: 1 });
  assert.equal(again.result.videos[0].seed, 7);
  // The frames: each file also holds its own signed credentials (task id, time).
  const [a, b] = await Promise.all(
    [first.result.videos[0].service_url, again.result.videos[0].service_url].map(
      async (url: string) => (await webpFrames((await download(url)).data)).frames,
    ),
  );
  assert.deepEqual(a, b, 'the same seed and request: the same frames');
  const [s, next] = (await video(h, { ...body, seed: undefined })).result.videos.map(
    (item: { seed: number }) => item.seed,
  );
  assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32, `a 32-bit seed: ${s}`);
  assert.equal(next, (s + 1) % 2 ** 32);
  const rejected = await create(h, { seed: 2 ** 32 });
  assert.equal(rejected.status, 400);
  assert.deepEqual(rejected.json.error[0].path, ['seed']);
});
