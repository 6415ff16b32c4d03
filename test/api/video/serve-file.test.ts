import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { type Harness, startService } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);

/** A GET over real HTTP, the body kept as bytes. */
async function get(h: Harness, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(`${h.url}${path}`, { method, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Stores `size` random bytes as a video; any bytes do for range maths. */
async function stored(h: Harness, size = 1000, format: 'mp4' | 'webp' = 'mp4') {
  const data = randomBytes(size);
  const video = await h.server.services.videos.save(data, format);
  return { data, path: new URL(video.serviceUrl).pathname, fileName: video.fileName };
}

test('a stored video: 200 whole with its type, length, ETag, caching for images.cacheMaxAgeSeconds (not immutable), Accept-Ranges and nosniff', async (t) => {
  const h = await startService(t);
  const { data, path, fileName } = await stored(h);
  assert.match(path, /^\/videos\/vid_[0-9A-Za-z]{22}\.mp4$/);
  const res = await get(h, path);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, data);
  assert.equal(res.headers.get('content-type'), 'video/mp4');
  assert.equal(res.headers.get('content-length'), '1000');
  assert.equal(res.headers.get('accept-ranges'), 'bytes');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('etag'), `"${fileName}"`);
  assert.equal(res.headers.get('cache-control'), 'public, max-age=86400');
  assert.equal(res.headers.get('content-range'), null);

  const webp = await stored(h, 300, 'webp');
  const animated = await get(h, webp.path);
  assert.equal(animated.status, 200);
  assert.equal(animated.headers.get('content-type'), 'image/webp');
  assert.deepEqual(animated.body, webp.data);
});

test('each range form answers 206 with exactly that slice and its Content-Range', async (t) => {
  const h = await startService(t);
  const { data, path } = await stored(h, 1000);
  const cases: Array<[string, number, number]> = [
    ['bytes=0-0', 0, 0],
    ['bytes=10-19', 10, 19],
    ['bytes=500-', 500, 999],
    ['bytes=-100', 900, 999],
    ['bytes=999-999', 999, 999],
    // Clamped: a last position past the end, and a suffix longer than the file.
    ['bytes=990-5000', 990, 999],
    ['bytes=-5000', 0, 999],
    ['bytes=0-999', 0, 999],
  ];
  for (const [range, first, last] of cases) {
    const res = await get(h, path, { range });
    assert.equal(res.status, 206, range);
    assert.equal(res.headers.get('content-range'), `bytes ${first}-${last}/1000`, range);
    assert.equal(res.headers.get('content-length'), String(last - first + 1), range);
    assert.equal(res.headers.get('accept-ranges'), 'bytes', range);
    assert.equal(res.headers.get('content-type'), 'video/mp4', range);
    assert.deepEqual(res.body, data.subarray(first, last + 1), range);
  }
});

test('an unsatisfiable range is 416 with bytes */size and no body', async (t) => {
  const h = await startService(t);
  const { path } = await stored(h, 1000);
  for (const range of ['bytes=1000-', 'bytes=1000-1001', 'bytes=5000-6000', 'bytes=-0']) {
    const res = await get(h, path, { range });
    assert.equal(res.status, 416, range);
    assert.equal(res.headers.get('content-range'), 'bytes */1000', range);
    assert.equal(res.headers.get('accept-ranges'), 'bytes', range);
    assert.equal(res.body.length, 0, range);
  }
});

test('several ranges, another unit or a malformed Range header are ignored: 200 with the whole file', async (t) => {
  const h = await startService(t);
  const { data, path } = await stored(h, 1000);
  for (const range of [
    'bytes=0-1,5-6',
    'bytes=0-1, 5-6',
    'items=0-5',
    'bytes=abc',
    'bytes=-',
    'bytes=5-2',
    'bytes 0-5',
    'bytes=0x10-20',
    'bytes=99999999999999999999-',
  ]) {
    const res = await get(h, path, { range });
    assert.equal(res.status, 200, range);
    assert.equal(res.headers.get('content-range'), null, range);
    assert.equal(res.headers.get('content-length'), '1000', range);
    assert.deepEqual(res.body, data, range);
  }
});

test('If-Range with the current ETag honours the Range; with anything else the answer is the whole file', async (t) => {
  const h = await startService(t);
  const { data, path, fileName } = await stored(h, 1000);
  const honoured = await get(h, path, { range: 'bytes=100-199', 'if-range': `"${fileName}"` });
  assert.equal(honoured.status, 206);
  assert.deepEqual(honoured.body, data.subarray(100, 200));
  for (const ifRange of ['"vid_AAAAAAAAAAAAAAAAAAAAAA.mp4"', 'W/"other"', 'Wed, 21 Oct 2015 07:28:00 GMT']) {
    const res = await get(h, path, { range: 'bytes=100-199', 'if-range': ifRange });
    assert.equal(res.status, 200, ifRange);
    assert.equal(res.headers.get('content-range'), null, ifRange);
    assert.deepEqual(res.body, data, ifRange);
  }
  // An If-Range that does not match also drops an unsatisfiable range: the whole file, not 416.
  const mismatched416 = await get(h, path, { range: 'bytes=5000-', 'if-range': '"stale"' });
  assert.equal(mismatched416.status, 200);
});

test('If-None-Match with the ETag is 304 with no body, even with a Range', async (t) => {
  const h = await startService(t);
  const { path, fileName } = await stored(h, 1000);
  const tries: Record<string, string>[] = [
    { 'if-none-match': `"${fileName}"` },
    { 'if-none-match': `"${fileName}"`, range: 'bytes=0-9' },
  ];
  for (const headers of tries) {
    const res = await get(h, path, headers);
    assert.equal(res.status, 304);
    assert.equal(res.body.length, 0);
    assert.equal(res.headers.get('etag'), `"${fileName}"`);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
  }
  const other = await get(h, path, { 'if-none-match': '"something-else"' });
  assert.equal(other.status, 200);
});

/**
 * A HEAD over node:http, which (unlike fetch) shows the headers a HEAD answer really carries and any body bytes sent.
 */
function head(h: Harness, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }>(
    (resolve, reject) => {
      const req = httpRequest(`${h.url}${path}`, { method: 'HEAD', headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

test('HEAD answers the same headers as GET, with no body; with a Range, the 206 headers', async (t) => {
  const h = await startService(t);
  const { path, fileName } = await stored(h, 1000);
  const whole = await head(h, path);
  assert.equal(whole.status, 200);
  assert.equal(whole.bytes, 0);
  assert.equal(whole.headers['content-length'], '1000');
  assert.equal(whole.headers['content-type'], 'video/mp4');
  assert.equal(whole.headers['accept-ranges'], 'bytes');
  assert.equal(whole.headers.etag, `"${fileName}"`);
  assert.equal(whole.headers['x-content-type-options'], 'nosniff');
  const partial = await head(h, path, { range: 'bytes=10-19' });
  assert.equal(partial.status, 206);
  assert.equal(partial.bytes, 0);
  assert.equal(partial.headers['content-range'], 'bytes 10-19/1000');
  assert.equal(partial.headers['content-length'], '10');
  const missing = await head(h, '/videos/vid_AAAAAAAAAAAAAAAAAAAAAA.mp4');
  assert.equal(missing.status, 404);
});

test('unknown, malformed and image names are 404 NOT_FOUND with the flat error body, never 500', async (t) => {
  const h = await startService(t);
  const image = await h.server.services.images.saveAsIs(randomBytes(100), 'png', 1, 1);
  const paths = [
    '/videos/vid_AAAAAAAAAAAAAAAAAAAAAA.mp4',
    '/videos/vid_AAAAAAAAAAAAAAAAAAAAAA.webp',
    '/videos/vid_short.mp4',
    '/videos/vid_AAAAAAAAAAAAAAAAAAAAAA.mkv',
    '/videos/img_AAAAAAAAAAAAAAAAAAAAAA.png',
    '/videos/..%2F..%2Fetc%2Fpasswd',
    '/videos/%00',
    '/videos/x.exe',
    // A stored image is not a video: each kind has its own store.
    `/videos/${image.fileName}`,
  ];
  for (const path of paths) {
    const res = await h.request('GET', path, { headers: { range: 'bytes=0-10' } });
    assert.equal(res.status, 404, path);
    assert.equal(res.json.code, 'NOT_FOUND', path);
  }
});

test('a browser-like sequence on a real MP4: bytes=0-, then a seek to the middle, then the tail', async (t) => {
  const h = await startService(t);
  const dir = await tempDir(t);
  const out = join(dir, 'clip.mp4');
  await run(bundledFfmpegPath(), [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x90:rate=8:duration=1',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-y',
    out,
  ]);
  const mp4 = await readFile(out);
  assert.equal(mp4.subarray(4, 8).toString('latin1'), 'ftyp');
  const video = await h.server.services.videos.save(mp4, 'mp4');
  const path = new URL(video.serviceUrl).pathname;
  const size = mp4.length;

  // The first request of a <video> element: an open range, answered 206 with the whole length.
  const first = await get(h, path, { range: 'bytes=0-' });
  assert.equal(first.status, 206);
  assert.equal(first.headers.get('content-range'), `bytes 0-${size - 1}/${size}`);
  assert.deepEqual(first.body, mp4);
  const etag = first.headers.get('etag')!;

  // A seek: the player asks from the middle, revalidating with If-Range.
  const middle = Math.floor(size / 2);
  const seek = await get(h, path, { range: `bytes=${middle}-`, 'if-range': etag });
  assert.equal(seek.status, 206);
  assert.equal(seek.headers.get('content-range'), `bytes ${middle}-${size - 1}/${size}`);
  assert.deepEqual(seek.body, mp4.subarray(middle));

  // And the tail, as players probe for a trailing moov box.
  const tail = await get(h, path, { range: 'bytes=-16' });
  assert.equal(tail.status, 206);
  assert.deepEqual(tail.body, mp4.subarray(size - 16));
});

test('the API description shows the range headers and the 206, 304 and 416 answers', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const op = doc.paths['/videos/{file}'].get;
  assert.deepEqual(op.security, []);
  assert.deepEqual(
    op.parameters.map((p: any) => `${p.in} ${p.name}`),
    ['path file', 'header range', 'header if-range', 'header if-none-match'],
  );
  for (const status of ['200', '206', '304', '416', '404']) assert.ok(op.responses[status], status);
  assert.ok(op.responses['200'].content['video/mp4']);
  assert.equal(op.responses['206'].content, undefined);
  assert.ok(op.responses['206'].headers['Content-Range']);
  assert.ok(op.responses['416'].headers['Content-Range']);
});
