import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';
import { startS3 } from '../helpers/s3.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

/** The placeholder video model, small: the real encoder stays fast. */
const SMALL_VIDEO = {
  placeholder: {
    provider: 'placeholder',
    price: { perSecond: '0.002', perInput: '0' },
    capabilities: {
      maxInputs: 0,
      negativePrompt: true,
      maxDurationS: 10,
      maxFps: 30,
      maxSize: '320x180',
      nativeSize: '160x90',
    },
  },
};

/** The gallery items a page links to, in order: `taskId/index`. */
const tilesOf = (html: string): string[] =>
  [...html.matchAll(/<li class="tile"><a href="\/console\/gallery\/(tsk_[0-9A-Za-z]+\/\d+)"/g)].map((m) => m[1]);

/** A thumbnail with the client's session cookie: status, headers and bytes. */
async function thumb(h: Harness, client: ConsoleClient, path: string) {
  const res = await fetch(`${h.url}${path}`, { headers: { cookie: `imgtask_console=${client.cookie}` } });
  return { status: res.status, headers: res.headers, data: Buffer.from(await res.arrayBuffer()) };
}

/** Makes a one-second video of `format`; answers the settled task and the stored file's name. */
async function makeVideo(h: Harness, format: 'mp4' | 'webp' = 'mp4') {
  const res = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox <running>', duration_s: 1, fps: 8, format },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 60_000);
  assert.equal(task.status, 'completed', JSON.stringify(task.errors));
  return { task, file: `${task.result.videos[0].id}.${format}` as string };
}

/** The mean RGB of a clip's first frame, decoded by the bundled ffmpeg itself. */
async function firstFrameMean(t: TestContext, clip: Buffer): Promise<number[]> {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'in'), clip);
  const { stdout } = await run(
    bundledFfmpegPath(),
    ['-v', 'error', '-i', join(dir, 'in'), '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', '-'],
    { encoding: 'buffer' },
  );
  return meanOf(stdout);
}

async function meanOf(data: Buffer): Promise<number[]> {
  return (await sharp(data).stats()).channels.slice(0, 3).map((c) => c.mean);
}

/** Where a stored video's file (or its poster) sits in the data dir: `videos/<2 chars>/<name>`. */
const storedPath = (h: Harness, name: string) => join(h.dataDir, 'videos', name.slice(4, 6), name);
const posterOf = (file: string) => file.replace(/\.(mp4|webp)$/, '.poster.webp');

test('a video shows its first frame in the grid, labelled, and as the full view’s poster; the poster is stored beside the video and never served as one', async (t) => {
  const h = await startService(t, { config: { videoModels: SMALL_VIDEO } });
  const { task, file } = await makeVideo(h);
  const client = await consoleSignIn(h);
  const grid = await client.get('/console/gallery');
  assert.deepEqual(tilesOf(grid.text), [`${task.id}/0`]);
  const tile = /<li class="tile">[\s\S]*?<\/li>/.exec(grid.text)?.[0] ?? '';
  assert.match(
    tile,
    new RegExp(
      `<span class="video-thumb"><img src="/console/thumbs/${task.id}/0\\?w=320"[^>]* width="160" height="90"[^>]* alt="a fox &lt;running&gt;"/><span class="video-label">Video</span></span>`,
    ),
  );
  assert.match(tile, new RegExp(`<a href="/videos/${file}">Open the video</a>`));

  const poster = await thumb(h, client, `/console/thumbs/${task.id}/0?w=320`);
  assert.equal(poster.status, 200);
  assert.equal(poster.headers.get('content-type'), 'image/webp');
  assert.equal(poster.headers.get('cache-control'), 'private, max-age=86400');
  assert.equal(poster.headers.get('x-thumbnail'), 'resized', 'a frame, not the placeholder');
  const meta = await sharp(poster.data).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 160, 90], 'the clip’s size, never scaled up');
  const video = await fetch(`${h.url}/videos/${file}`);
  const clip = Buffer.from(await video.arrayBuffer());
  const [frame, still] = [await firstFrameMean(t, clip), await meanOf(poster.data)];
  for (const [i, channel] of frame.entries())
    assert.ok(Math.abs(channel - still[i]) < 12, `the clip’s first frame: rgb ${still} against ${frame}`);

  assert.deepEqual(
    (await readdir(join(h.dataDir, 'videos', file.slice(4, 6)))).sort(),
    [file, posterOf(file)].sort(),
    'made when the video was stored, beside it',
  );
  assert.equal((await fetch(`${h.url}/videos/${posterOf(file)}`)).status, 404, 'a poster is not a video');

  const full = await client.get(`/console/gallery/${task.id}/0`);
  assert.match(
    full.text,
    new RegExp(
      `<video controls="" muted="" preload="metadata" src="/videos/${file}" poster="/console/thumbs/${task.id}/0\\?w=1280" width="160" height="90">`,
    ),
  );
  assert.equal(
    (await thumb(h, client, `/console/thumbs/${task.id}/0?w=1280`)).status,
    200,
    'the full view’s poster answers',
  );
});

test('an animated WebP gets its first page as the poster', async (t) => {
  const h = await startService(t, { config: { videoModels: SMALL_VIDEO } });
  const { task, file } = await makeVideo(h, 'webp');
  const client = await consoleSignIn(h);
  const poster = await thumb(h, client, `/console/thumbs/${task.id}/0?w=160`);
  assert.equal(poster.headers.get('x-thumbnail'), 'resized');
  const meta = await sharp(poster.data).metadata();
  assert.deepEqual(
    [meta.format, meta.width, meta.height, meta.pages ?? 1],
    ['webp', 160, 90, 1],
    'one still, not the animation',
  );
  assert.ok((await readdir(join(h.dataDir, 'videos', file.slice(4, 6)))).includes(posterOf(file)));
});

test('a video stored without a poster gets one when first shown; one whose frames cannot be read shows a placeholder, never cached', async (t) => {
  const h = await startService(t, { config: { videoModels: SMALL_VIDEO } });
  const older = await makeVideo(h);
  const broken = await makeVideo(h);
  // As stored before posters were made, or with its poster's write lost.
  await rm(storedPath(h, posterOf(older.file)));
  await rm(storedPath(h, posterOf(broken.file)));
  await writeFile(storedPath(h, broken.file), 'not a video any more');
  const client = await consoleSignIn(h);

  const late = await thumb(h, client, `/console/thumbs/${older.task.id}/0?w=320`);
  assert.equal(late.status, 200);
  assert.equal(late.headers.get('x-thumbnail'), 'resized');
  assert.equal((await sharp(late.data).metadata()).width, 160);
  assert.ok(
    (await readdir(join(h.dataDir, 'videos', older.file.slice(4, 6)))).includes(posterOf(older.file)),
    'made now, and kept',
  );

  for (let i = 0; i < 2; i++) {
    const placeholder = await thumb(h, client, `/console/thumbs/${broken.task.id}/0?w=320`);
    assert.equal(placeholder.status, 200);
    assert.equal(placeholder.headers.get('x-thumbnail'), 'placeholder');
    assert.equal(placeholder.headers.get('cache-control'), 'no-store', 'a frame made later replaces it');
    assert.equal(placeholder.headers.get('etag'), null);
    assert.equal((await sharp(placeholder.data).metadata()).format, 'webp');
  }
  const grid = await client.get('/console/gallery');
  assert.deepEqual(tilesOf(grid.text), [`${broken.task.id}/0`, `${older.task.id}/0`], 'both still in the gallery');
});

test('with videos on S3, the poster is an object beside its video and the gallery shows it', async (t) => {
  const s3 = await startS3(t);
  const storage = {
    storage: 's3',
    s3: {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      prefix: 'fleet/',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
  };
  const h = await startService(t, { config: { images: storage, videoModels: SMALL_VIDEO } });
  const { task, file } = await makeVideo(h);
  const shard = `fleet/videos/${file.slice(4, 6)}/`;
  assert.deepEqual((await s3.keys(shard)).sort(), [`${shard}${file}`, `${shard}${posterOf(file)}`].sort());
  const object = await s3.read(`${shard}${posterOf(file)}`);
  assert.equal(object.contentType, 'image/webp');
  assert.equal((await sharp(object.body).metadata()).format, 'webp');
  const client = await consoleSignIn(h);
  const poster = await thumb(h, client, `/console/thumbs/${task.id}/0?w=320`);
  assert.equal(poster.status, 200);
  assert.equal(poster.headers.get('x-thumbnail'), 'resized');
  const [stored, shown] = [await meanOf(object.body), await meanOf(poster.data)];
  for (const [i, channel] of stored.entries())
    assert.ok(Math.abs(channel - shown[i]) < 6, `the stored poster: rgb ${shown} against ${stored}`);
});
