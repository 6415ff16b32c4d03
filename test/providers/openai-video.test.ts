import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { ProviderError } from '../../src/domain/task-status.js';
import type { VideoParams } from '../../src/providers/provider-types.js';
import { createOpenAiVideo, nearestSeconds, type OpenAiVideoOptions } from '../../src/providers/remote/openai-video.js';
import { type FakeOpenAiVideo, type FakeVideoMode, startFakeOpenAiVideo } from '../fixtures/fake-openai-video.js';
import { makeImage } from '../helpers/images.js';

const KEY = 'sk-video-test-0123456789';

const provider = (fake: FakeOpenAiVideo, extra: Partial<OpenAiVideoOptions> = {}) =>
  createOpenAiVideo({
    name: 'sora',
    baseUrl: fake.baseUrl,
    model: 'sora-2',
    sizes: ['1280x720', '720x1280'],
    seconds: [4, 8, 12],
    pollIntervalMs: 10,
    timeoutMs: 5000,
    apiKey: KEY,
    ...extra,
  });

const params = (extra: Partial<VideoParams> = {}): VideoParams => ({
  model: 'sora',
  prompt: 'a red kite over the sea',
  width: 1920,
  height: 1080,
  durationS: 5,
  fps: 24,
  format: 'mp4',
  index: 0,
  options: {},
  signal: new AbortController().signal,
  ...extra,
});

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError, `a ProviderError, not ${String(err)}`);
  return err;
}

test('size and seconds map to what the model takes', () => {
  assert.equal(nearestSeconds([4, 8, 12], 1), 4);
  assert.equal(nearestSeconds([12, 4, 8], 5), 8, 'the shortest at or above the duration, whatever the order');
  assert.equal(nearestSeconds([4, 8, 12], 8), 8);
  assert.equal(nearestSeconds([4, 8, 12], 30), 12, 'else the longest');
});

test('OpenAI video: creates a multipart job, polls it to completion and answers the MP4', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.pollsToComplete = 3;
  const made = await provider(fake).generate(params());
  assert.equal(made.format, 'mp4');
  assert.ok(made.data.equals(fake.mp4), "the fake's MP4 bytes");

  const [create, ...rest] = fake.requests;
  assert.equal(create.method, 'POST');
  assert.equal(create.path, '/v1/videos');
  assert.deepEqual(
    create.fields,
    { model: 'sora-2', prompt: 'a red kite over the sea', seconds: '8', size: '1280x720' },
    '16:9 → 1280x720, 5 s → 8',
  );
  assert.deepEqual(create.files, []);
  assert.deepEqual(
    rest.map((r) => `${r.method} ${r.path.replace(/video_\w+/, 'ID')}`),
    ['GET /v1/videos/ID', 'GET /v1/videos/ID', 'GET /v1/videos/ID', 'GET /v1/videos/ID/content'],
    'polled until completed, then downloaded',
  );
  assert.ok(
    fake.requests.every((r) => r.authorization === `Bearer ${KEY}`),
    'every request carries the key',
  );
  assert.deepEqual(fake.deletes, [], 'a collected job is not deleted');
});

test('OpenAI video: an input becomes input_reference, a PNG of exactly the mapped size', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  const data = await makeImage({ width: 300, height: 500 });
  const made = await provider(fake).generate(
    params({ width: 720, height: 1280, durationS: 12, input: { data, format: 'png', width: 300, height: 500 } }),
  );
  assert.ok(made.data.equals(fake.mp4));
  const [create] = fake.creates();
  assert.equal(create.fields?.size, '720x1280');
  assert.equal(create.fields?.seconds, '12');
  assert.equal(create.files?.length, 1);
  const [file] = create.files ?? [];
  assert.equal(file.field, 'input_reference');
  assert.equal(file.type, 'image/png');
  assert.deepEqual([file.width, file.height], [720, 1280], 'covered to the clip size');
});

test('OpenAI video: a portrait request maps to the portrait size; no key configured sends no authorization', async (t) => {
  const fake = await startFakeOpenAiVideo(t);
  await provider(fake, { apiKey: undefined }).generate(params({ width: 480, height: 854, durationS: 30 }));
  const [create] = fake.creates();
  assert.equal(create.fields?.size, '720x1280');
  assert.equal(create.fields?.seconds, '12');
  assert.ok(fake.requests.every((r) => r.authorization === undefined));
});

test('OpenAI video: failures map to the SPEC codes', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  const cases: Array<[FakeVideoMode, string, boolean]> = [
    ['rate-limit', 'RATE_LIMITED', true],
    ['server-error', 'PROVIDER_ERROR', true],
    ['policy', 'RESTRICTED_CONTENT', false],
    ['job-failed', 'RESTRICTED_CONTENT', false],
    ['job-error', 'PROVIDER_ERROR', true],
    ['not-mp4', 'PROVIDER_ERROR', true],
  ];
  for (const [mode, code, retryable] of cases) {
    await t.test(`${mode} → ${code}`, async () => {
      fake.mode = mode;
      fake.requests.length = 0;
      const err = await failure(provider(fake).generate(params()));
      assert.equal(err.code, code, err.message);
      assert.equal(err.retryable, retryable);
      assert.equal(err.message.includes(KEY), false, 'the key is never in a message');
      if (mode === 'job-error') assert.match(err.message, /internal error/, "the provider's message");
      if (mode === 'job-failed') assert.match(err.providerResponse ?? '', /moderation/);
      assert.deepEqual(fake.deletes, [], 'a finished or refused job is not deleted');
    });
  }
});

test('OpenAI video: a wrong key and an unknown job are provider errors', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  const err = await failure(provider(fake, { apiKey: 'sk-wrong' }).generate(params()));
  assert.equal(err.code, 'PROVIDER_ERROR');
  assert.match(err.message, /401/);

  const res = await fetch(`${fake.baseUrl}/videos/video_nope`, { headers: { authorization: `Bearer ${KEY}` } });
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /not found/);
});

test('OpenAI video: a job that does not finish in time → TIMEOUT, and the job is deleted', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.mode = 'never-completes';
  const started = Date.now();
  const err = await failure(provider(fake, { timeoutMs: 300 }).generate(params()));
  assert.equal(err.code, 'TIMEOUT');
  assert.equal(err.retryable, true);
  assert.ok(Date.now() - started < 1500, 'bounded by timeoutMs');
  const [create] = fake.creates();
  assert.ok(create);
  await until(() => fake.deletes.length === 1);
  const del = fake.requests.find((r) => r.method === 'DELETE');
  assert.equal(del?.authorization, `Bearer ${KEY}`);
  assert.match(del?.path ?? '', /^\/v1\/videos\/video_\w+$/);
});

test('OpenAI video: an abort rejects at once and deletes the job', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.mode = 'never-completes';
  const controller = new AbortController();
  const running = provider(fake, { pollIntervalMs: 50 }).generate(params({ signal: controller.signal }));
  await until(() => fake.requests.some((r) => r.method === 'GET'));
  const aborted = Date.now();
  controller.abort();
  const err = await failure(running);
  assert.ok(Date.now() - aborted < 200, 'rejects quickly');
  assert.notEqual(err.code, 'TIMEOUT');
  await until(() => fake.deletes.length === 1);
});

test('OpenAI video: one failed poll does not lose the job', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.pollsToComplete = 2;
  // A proxy in front of the fake that fails the first poll.
  const real = fake.baseUrl;
  let polls = 0;
  const proxy = createServer(async (req, res) => {
    if (req.method === 'GET' && /\/videos\/video_\w+$/.test(req.url ?? '') && ++polls === 1) {
      res.statusCode = 502;
      return res.end('bad gateway');
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const upstream = await fetch(`${real.replace('/v1', '')}${req.url}`, {
      method: req.method,
      headers: {
        authorization: req.headers.authorization ?? '',
        'content-type': req.headers['content-type'] ?? 'application/octet-stream',
      },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.statusCode = upstream.status;
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t.after(() => {
    proxy.closeAllConnections();
    return new Promise((r) => proxy.close(r));
  });
  fake.baseUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/v1`;
  const made = await provider(fake).generate(params());
  assert.ok(made.data.equals(fake.mp4));
  assert.ok(polls >= 3, 'the failed poll was followed by more');
  assert.deepEqual(fake.deletes, []);
});

test('OpenAI video: the key goes only to baseUrl: no redirects followed, job ids kept inside /videos/', async (t) => {
  const elsewhere: string[] = [];
  const other = createServer((req, res) => {
    elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('{}');
  });
  const seen: string[] = [];
  let redirectContent = true;
  const tricky = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST')
      return res.end(JSON.stringify({ id: '../../../steal?x=1', object: 'video', status: 'completed', progress: 100 }));
    if (req.url?.endsWith('/content') && redirectContent) {
      res.statusCode = 302;
      res.setHeader('location', `http://127.0.0.1:${(other.address() as { port: number }).port}/grab`);
      return res.end();
    }
    res.statusCode = 404;
    res.end('{"error":{"message":"not found"}}');
  });
  for (const server of [other, tricky]) {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    });
  }
  const baseUrl = `http://127.0.0.1:${(tricky.address() as { port: number }).port}/v1`;
  const generator = createOpenAiVideo({
    name: 'sora',
    baseUrl,
    model: 'sora-2',
    sizes: ['1280x720'],
    seconds: [4],
    pollIntervalMs: 10,
    timeoutMs: 2000,
    apiKey: KEY,
  });
  const err = await failure(generator.generate(params()));
  assert.equal(err.code, 'PROVIDER_ERROR');
  assert.deepEqual(
    seen,
    ['POST /v1/videos', 'GET /v1/videos/..%2F..%2F..%2Fsteal%3Fx%3D1/content'],
    'the id is one path segment under /videos/',
  );
  assert.deepEqual(elsewhere, [], 'the redirect was not followed');
  redirectContent = false;
  assert.equal((await failure(generator.generate(params()))).code, 'PROVIDER_ERROR', 'a 404 on the content too');
});
