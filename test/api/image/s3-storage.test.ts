import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';
import { startS3 } from '../../helpers/s3.js';

type S3 = Awaited<ReturnType<typeof startS3>>;

/** images.storage s3 on the test bucket, under the prefix `fleet/`. */
const onBucket = (s3: { endpoint: string; bucket: string }, extra: Record<string, unknown> = {}) => ({
  images: {
    storage: 's3',
    s3: {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      prefix: 'fleet/',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
  },
  ...extra,
});

/** The placeholder video model, small: the real encoder stays fast. */
const SMALL_VIDEO = {
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

async function upload(h: Harness, files: Array<{ data: Buffer; name: string }>) {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.data)]), file.name);
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function generate(h: Harness, body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dusk', ...body },
  });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 30_000);
}

/** The sharded key of a file: `fleet/<folder>/<2 chars after the prefix>/<file>`. */
const keyOf = (folder: 'images' | 'videos', file: string) => `fleet/${folder}/${file.slice(4, 6)}/${file}`;
const fileOf = (serviceUrl: string) => serviceUrl.split('/').pop()!;

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function assertServedFrom(s3: S3, url: string, file: string, folder: 'images' | 'videos', type: string) {
  const object = await s3.read(keyOf(folder, file));
  assert.equal(object.contentType, type, 'the object carries its content type');
  const res = await get(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), type);
  assert.equal(res.headers.get('etag'), `"${file}"`);
  assert.equal(res.headers.get('content-length'), String(object.body.length));
  assert.ok(res.body.equals(object.body), 'the served bytes are the object in the bucket');
  const cached = await get(url, { 'if-none-match': `"${file}"` });
  assert.equal(cached.status, 304);
  assert.equal(cached.body.length, 0);
  assert.equal(cached.headers.get('etag'), `"${file}"`);
  const head = await fetch(url, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(object.body.length));
  return object.body;
}

test('with images.storage s3, generated and uploaded images land in the bucket and are served from it with their type, ETag and 304', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: onBucket(s3) });
  const task = await generate(h, { count: 2, output: { format: 'webp' } });
  assert.equal(task.status, 'completed');
  const generated = task.result.images.map((image: { service_url: string }) => fileOf(image.service_url));
  assert.equal(generated.length, 2);
  const up = await upload(h, [
    { data: await makeImage({ format: 'png', width: 80, height: 60 }), name: 'a.png' },
    { data: await makeImage({ format: 'jpeg', width: 128, height: 128 }), name: 'b.jpg' },
  ]);
  assert.equal(up.status, 201, JSON.stringify(up.json));
  const uploaded = up.json.data.files.map((f: { service_url: string }) => fileOf(f.service_url));
  assert.deepEqual(
    (await s3.keys('fleet/images/')).sort(),
    [...generated, ...uploaded].map((file) => keyOf('images', file)).sort(),
    'every image, and nothing else, under <prefix>images/',
  );
  assert.equal(existsSync(join(h.dataDir, 'images')), false, 'nothing written to the data dir');

  for (const file of generated) await assertServedFrom(s3, `${h.url}/images/${file}`, file, 'images', 'image/webp');
  const png = await assertServedFrom(s3, `${h.url}/images/${uploaded[0]}`, uploaded[0], 'images', 'image/png');
  assert.equal(png[1], 0x50, 'a PNG signature');
  await assertServedFrom(s3, `${h.url}/images/${uploaded[1]}`, uploaded[1], 'images', 'image/jpeg');

  // A name of the right form with no object, another extension of a stored id, a name of another kind: 404.
  for (const name of [
    'img_0000000000000000000000.png',
    uploaded[0].replace('.png', '.webp'),
    uploaded[0].replace('img_', 'vid_'),
    'nope.png',
  ]) {
    const missing = await h.request('GET', `/images/${name}`);
    assert.equal(missing.status, 404, name);
    assert.equal(missing.json.code, 'NOT_FOUND');
    const cached = await h.request('GET', `/images/${name}`, { headers: { 'if-none-match': `"${name}"` } });
    assert.equal(cached.status, 404, `${name} with If-None-Match`);
  }
});

test('rate, alt, review, remove-background and inputs read service URLs and ids from the bucket', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: onBucket(s3) });
  const up = await upload(h, [
    { data: await makeImage({ format: 'png', width: 80, height: 60 }), name: 'a.png' },
    { data: await makeImage({ format: 'webp', width: 40, height: 90 }), name: 'c.webp' },
  ]);
  const [a, c] = up.json.data.files;
  assert.equal(existsSync(join(h.dataDir, 'images')), false);
  // The SSRF guard is on and the server is on loopback: these succeed only by reading the bucket.
  const rated = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [a.service_url, c.id] },
  });
  assert.equal(rated.status, 200, rated.text);
  assert.deepEqual(
    rated.json.data.results.map((r: { status: string }) => r.status),
    ['success', 'success'],
  );
  const alt = await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [c.service_url] } });
  assert.equal(alt.json.data.results[0].alt, 'A 40 by 90 webp image.');
  const review = await h.request('POST', '/image/review', { auth: h.apiKey, body: { url: a.service_url } });
  assert.equal(review.status, 200, review.text);
  assert.equal(review.json.data.result.findings[0].note, '80×60: the shorter side, 60 px, is below 512: too small');
  const cut = await waitForTask(
    h,
    (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: a.service_url } })).json.data
      .taskId,
    30_000,
  );
  assert.equal(cut.status, 'completed', JSON.stringify(cut.errors));
  const cutFile = fileOf(cut.result.image.service_url);
  assert.ok(
    (await s3.keys('fleet/images/')).includes(keyOf('images', cutFile)),
    'the cut-out is stored in the bucket too',
  );
  const withInput = await generate(h, { inputs: [a.id] });
  assert.equal(withInput.result.images[0].status, 'success');

  // An id or a service URL whose object is gone: the item fails as an unreadable input, not the request.
  const gone = 'img_0000000000000000000000';
  const missing = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [`${h.url}/images/${gone}.png`, a.id] },
  });
  assert.deepEqual(
    missing.json.data.results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status),
    ['FETCH_FAILED', 'success'],
  );
});

test('two servers with their own data dirs and one bucket serve each other’s images (the multi-machine case)', async (t) => {
  const s3 = await startS3(t);
  const a = await startService(t, { config: onBucket(s3) });
  const b = await startService(t, { config: onBucket(s3) });
  assert.notEqual(a.dataDir, b.dataDir);
  const fromA = fileOf((await generate(a)).result.images[0].service_url);
  const upB = await upload(b, [{ data: await makeImage({ format: 'png', width: 70, height: 50 }), name: 'b.png' }]);
  const fromB = upB.json.data.files[0];

  // B knows nothing of A's task (its own store), yet serves A's file, and the other way round.
  assert.equal((await b.request('GET', `/images/${fromA}`)).status, 200);
  const viaA = await get(`${a.url}/images/${fromA}`);
  const viaB = await get(`${b.url}/images/${fromA}`);
  assert.ok(viaB.body.equals(viaA.body) && viaB.body.length > 0, 'the same bytes from either server');
  assert.equal(viaB.headers.get('etag'), `"${fromA}"`);
  assert.equal((await get(`${b.url}/images/${fromA}`, { 'if-none-match': `"${fromA}"` })).status, 304);
  const bOnA = await get(`${a.url}/images/${fileOf(fromB.service_url)}`);
  assert.equal(bOnA.status, 200);
  assert.equal(bOnA.headers.get('content-type'), 'image/png');

  // A bare id made on one server is an input on the other.
  const rated = await b.request('POST', '/image/rate', {
    auth: b.apiKey,
    body: { mode: 'nsfw_sfw', urls: [fromA.split('.')[0]] },
  });
  assert.equal(rated.json.data.results[0].status, 'success', rated.text);
  const alt = await a.request('POST', '/image/alt', { auth: a.apiKey, body: { urls: [fromB.id] } });
  assert.equal(alt.json.data.results[0].alt, 'A 70 by 50 png image.');
});

test('a video lands in the bucket under <prefix>videos/ and byte ranges on it are exact (206, 416)', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: onBucket(s3, SMALL_VIDEO) });
  const res = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a red fox running through snow', duration_s: 1, fps: 8 },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 60_000);
  assert.equal(task.status, 'completed', JSON.stringify(task.errors));
  const url = task.result.videos[0].service_url;
  const file = fileOf(url);
  assert.match(file, /^vid_[0-9A-Za-z]{22}\.mp4$/);
  // The video, and its poster frame beside it (the console's picture of it).
  assert.deepEqual(await s3.keys('fleet/videos/'), [
    keyOf('videos', file),
    keyOf('videos', file.replace('.mp4', '.poster.webp')),
  ]);
  assert.equal(existsSync(join(h.dataDir, 'videos')), false);
  const whole = await assertServedFrom(s3, url, file, 'videos', 'video/mp4');
  const size = whole.length;
  assert.ok(size > 200, `a real clip (${size} bytes)`);

  for (const [range, start, end] of [
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, size - 1],
    ['bytes=-50', size - 50, size - 1],
    [`bytes=${size - 10}-${size + 500}`, size - 10, size - 1],
  ] as const) {
    const part = await get(url, { range });
    assert.equal(part.status, 206, range);
    assert.equal(part.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
    assert.equal(part.headers.get('content-length'), String(end - start + 1), range);
    assert.ok(part.body.equals(whole.subarray(start, end + 1)), `${range}: exactly those bytes`);
  }
  const past = await get(url, { range: `bytes=${size}-` });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get('content-range'), `bytes */${size}`);
  const headRange = await fetch(url, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
  assert.equal(headRange.status, 206);
  assert.equal(headRange.headers.get('content-length'), '10');

  const missing = await h.request('GET', `/videos/vid_0000000000000000000000.mp4`);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'NOT_FOUND');
  assert.equal(
    (await h.request('GET', `/videos/${file.replace('vid_', 'img_')}`)).status,
    404,
    'an image name is not a video',
  );
});

test('a bucket out of reach at write time fails the item with UNKNOWN_ERROR (released, not charged), never the create call', async (t) => {
  const port = await closedPort();
  const h = await startService(t, {
    config: onBucket({ endpoint: `http://127.0.0.1:${port}`, bucket: 'images' }, SMALL_VIDEO),
  });
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', count: 2 },
  });
  assert.equal(created.status, 201, 'the create call does not touch the storage');
  const task = await waitForTask(h, created.json.data.taskId, 30_000);
  assert.equal(task.status, 'completed', 'image.generate reports failures per image');
  for (const image of task.result.images) {
    assert.equal(image.status, 'failed');
    assert.equal(image.error.code, 'UNKNOWN_ERROR');
  }
  const item = (await h.server.services.store.tasks.get(task.id))!.items[0];
  assert.equal(item.attempts, 1, 'not retried on another provider: the storage is not a provider');
  assert.match(item.error!.message!, /^the image could not be stored: its storage failed \(/);
  assert.doesNotMatch(item.error!.message!, /127\.0\.0\.1/, 'the storage address is not told to the caller');

  const video = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', duration_s: 1, fps: 8 },
  });
  assert.equal(video.status, 201);
  const videoTask = await waitForTask(h, video.json.data.taskId, 60_000);
  assert.equal(videoTask.result.videos[0].error.code, 'UNKNOWN_ERROR');
  assert.equal((await accountOf(h)).balance, '100', 'nothing charged');
  assert.equal((await accountOf(h)).reserved, '0', 'every reserve released');

  // An upload is no task: the storage failing is the server's error, answered and logged as such.
  const up = await upload(h, [{ data: await makeImage({ format: 'png', width: 80, height: 60 }), name: 'a.png' }]);
  assert.equal(up.status, 500);
  assert.equal(up.json.code, 'INTERNAL_SERVER_ERROR');
  assert.ok(h.logs.some((line) => /image could not be stored/.test(line)));
});

test('images.storage is read at start: a reload keeps it and names it as deferred; its config is checked', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: onBucket(s3) });
  const { services } = h.server;
  const next = structuredClone(services.config.current());
  next.images.storage = 'local';
  next.images.cacheMaxAgeSeconds = 60;
  const { deferred } = await services.reload(next);
  assert.ok(deferred.includes('images.storage'));
  assert.equal(services.config.current().images.storage, 's3');
  assert.equal(services.config.current().images.cacheMaxAgeSeconds, 60, 'the rest of images applies at once');

  assert.throws(
    () => loadConfig({ env: {}, overrides: { images: { storage: 's3' } } }),
    /images\.s3: storage "s3" needs images\.s3/,
  );
  assert.throws(
    () => loadConfig({ env: {}, overrides: { images: { s3: { bucket: 'media', accessKeyId: 'AK' } } } }),
    /exactly one of secretAccessKeySecret, secretAccessKeyEnv or secretAccessKey/,
  );
  assert.throws(
    () => loadConfig({ env: {}, overrides: { images: { s3: { bucket: 'media', secretAccessKey: 'x' } } } }),
    /without it, none/,
  );
  assert.throws(
    () => loadConfig({ env: {}, overrides: { images: { s3: { bucket: 'media', prefix: 'a//b/' } } } }),
    /segments between slashes/,
  );
  const ok = loadConfig({
    env: {},
    overrides: {
      images: { storage: 's3', s3: { bucket: 'media', accessKeyId: 'AK', secretAccessKeyEnv: 'MEDIA_SECRET' } },
    },
  });
  assert.deepEqual(ok.images.s3, {
    bucket: 'media',
    region: 'us-east-1',
    endpoint: null,
    forcePathStyle: null,
    prefix: '',
    accessKeyId: 'AK',
    secretAccessKeyEnv: 'MEDIA_SECRET',
    timeoutMs: 30_000,
  });
});

test('the secret key can come from an environment variable; one that is not set stops the start with a config error', async (t) => {
  const s3 = await startS3(t);
  const variable = `IMGTASK_TEST_S3_SECRET_${process.pid}`;
  const config = {
    images: {
      storage: 's3',
      s3: { bucket: s3.bucket, endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKeyEnv: variable },
    },
  };
  await assert.rejects(
    startService(t, { config }),
    (err: Error) => err.name === 'ConfigError' && err.message.includes(variable),
  );
  process.env[variable] = 'S3RVER';
  t.after(() => {
    delete process.env[variable];
  });
  const h = await startService(t, { config });
  const up = await upload(h, [{ data: await makeImage({ format: 'png', width: 80, height: 60 }), name: 'a.png' }]);
  assert.equal(up.status, 201);
  assert.deepEqual(
    await s3.keys('images/'),
    [`images/${up.json.data.files[0].id.slice(4, 6)}/${up.json.data.files[0].id}.png`],
    'no prefix: keys start at images/',
  );
});
