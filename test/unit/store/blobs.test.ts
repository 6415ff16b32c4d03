import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { createS3Objects } from '../../../src/destinations/s3-objects.js';
import { randomId } from '../../../src/domain/ids.js';
import {
  type BlobStore,
  IMAGE_BLOBS,
  LocalBlobStore,
  ObjectBlobStore,
  POSTER_BLOBS,
  VIDEO_BLOBS,
} from '../../../src/store/blobs.js';
import { localMark, objectMark, recordedSince } from '../../../src/store/recorded-since.js';
import { startS3 } from '../../helpers/s3.js';
import { tempDir } from '../../helpers/temp-dir.js';

async function listed(store: BlobStore): Promise<Array<{ name: string; bytes: number }>> {
  const out = [];
  for await (const blob of store.list()) {
    assert.ok(
      blob.modifiedAt instanceof Date && Number.isFinite(blob.modifiedAt.getTime()),
      'each listed blob has its date',
    );
    out.push({ name: blob.name, bytes: blob.bytes });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** A real S3-compatible server and the driver over its bucket, closed when the test ends. */
async function s3Objects(t: TestContext, extra: { listPageSize?: number } = {}) {
  const s3 = await startS3(t);
  const objects = createS3Objects({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    timeoutMs: 5000,
    ...extra,
  });
  t.after(() => objects.close());
  return { s3, objects };
}

test('a local blob store lists its own blobs across shards, with sizes; temp files, stray files and the other kind beside them are not its', async (t) => {
  const root = await tempDir(t);
  const images = new LocalBlobStore(join(root, 'images'), IMAGE_BLOBS);
  const videos = new LocalBlobStore(join(root, 'videos'), VIDEO_BLOBS);
  const posters = new LocalBlobStore(join(root, 'videos'), POSTER_BLOBS);
  assert.deepEqual(await listed(images), [], 'no folder yet: nothing');

  const a = `${randomId('img')}.png`;
  const b = `${randomId('img')}.webp`;
  await images.put(a, Buffer.alloc(10));
  await images.put(b, Buffer.alloc(25));
  const video = `${randomId('vid')}.mp4`;
  const poster = `${video.slice(0, -4)}.poster.webp`;
  await videos.put(video, Buffer.alloc(40));
  await posters.put(poster, Buffer.alloc(5));
  // What is not a blob of the kind, or not where its name puts it.
  const shard = join(root, 'images', a.slice(4, 6));
  await writeFile(join(shard, `${a}.tmp`), 'half-written');
  await writeFile(join(shard, 'notes.txt'), 'stray');
  await mkdir(join(root, 'images', 'zz'), { recursive: true });
  await writeFile(join(root, 'images', 'zz', `${randomId('img').replace(/^img_../, 'img_ab')}.png`), 'wrong shard');
  await writeFile(join(root, 'images', 'top-level.png'), 'not in a shard');

  assert.deepEqual(
    await listed(images),
    [
      { name: a, bytes: 10 },
      { name: b, bytes: 25 },
    ].sort(byName),
  );
  assert.deepEqual(await listed(videos), [{ name: video, bytes: 40 }], 'the poster beside the video is not a video');
  assert.deepEqual(await listed(posters), [{ name: poster, bytes: 5 }]);
});

test('an object blob store lists its kind under its prefix, page after page, and nothing beside it', async (t) => {
  const { objects } = await s3Objects(t, { listPageSize: 2 });
  const images = new ObjectBlobStore(objects, 'fleet/images/', IMAGE_BLOBS);
  const videos = new ObjectBlobStore(objects, 'fleet/videos/', VIDEO_BLOBS);
  const posters = new ObjectBlobStore(objects, 'fleet/videos/', POSTER_BLOBS);
  const names = Array.from({ length: 5 }, (_, i) => `${randomId('img')}.${i % 2 ? 'png' : 'webp'}`);
  for (const [i, name] of names.entries()) await images.put(name, Buffer.alloc(100 + i), 'image/png');
  const video = `${randomId('vid')}.webp`;
  await videos.put(video, Buffer.alloc(7), 'image/webp');
  await posters.put(`${video.slice(0, -5)}.poster.webp`, Buffer.alloc(3), 'image/webp');
  // Beside them: another prefix, a key outside the shards, a blob name under the wrong shard.
  await objects.put(`other/images/${names[0].slice(4, 6)}/${names[0]}`, Buffer.alloc(1), 'image/png');
  await objects.put('fleet/images/readme.txt', Buffer.alloc(1), 'text/plain');
  await objects.put(`fleet/images/zz/${names[1]}`, Buffer.alloc(1), 'image/png');

  // Page size 2: five images and three others under fleet/images/ take four pages.
  assert.deepEqual(await listed(images), names.map((name, i) => ({ name, bytes: 100 + i })).sort(byName));
  assert.deepEqual(await listed(videos), [{ name: video, bytes: 7 }]);
  assert.deepEqual(
    (await listed(posters)).map((blob) => blob.name),
    [`${video.slice(0, -5)}.poster.webp`],
  );
});

test('recorded-since: a storage holding nothing is marked 0 (every file recorded), one holding files is marked now; a mark stays', async (t) => {
  const root = await tempDir(t);
  const images = new LocalBlobStore(join(root, 'images'), IMAGE_BLOBS);
  const mark = localMark(join(root, 'mark'));
  assert.equal(await recordedSince(mark, [images], 5_000), 0, 'a new install: nothing stored before');
  assert.equal(await readFile(join(root, 'mark'), 'utf8'), '1970-01-01T00:00:00.000Z');
  assert.equal(await recordedSince(mark, [images], 9_000), 0, 'read back, never moved');

  const upgraded = await tempDir(t);
  const old = new LocalBlobStore(join(upgraded, 'images'), IMAGE_BLOBS);
  await old.put(`${randomId('img')}.png`, Buffer.alloc(3));
  const now = Date.parse('2026-11-29T10:00:00.000Z');
  assert.equal(
    await recordedSince(localMark(join(upgraded, 'mark')), [old], now),
    now,
    'files from before: the mark is now',
  );
  assert.equal(await recordedSince(localMark(join(upgraded, 'mark')), [old], now + 60_000), now);

  await writeFile(join(upgraded, 'garbled'), 'not a date');
  assert.equal(
    await recordedSince(localMark(join(upgraded, 'garbled')), [old], now + 1),
    now + 1,
    'an unreadable mark counts as now: nothing taken for an orphan',
  );
});

test('recorded-since on a bucket: the mark is an object beside the prefixes, written once', async (t) => {
  const { s3, objects } = await s3Objects(t);
  const images = new ObjectBlobStore(objects, 'p/images/', IMAGE_BLOBS);
  await images.put(`${randomId('img')}.png`, Buffer.alloc(3), 'image/png');
  const now = Date.parse('2026-11-29T10:00:00.000Z');
  assert.equal(await recordedSince(objectMark(objects, 'p/blobs-recorded-since'), [images], now), now);
  assert.equal(
    await recordedSince(objectMark(objects, 'p/blobs-recorded-since'), [images], now + 5),
    now,
    'the first mark stays',
  );
  assert.equal((await s3.read('p/blobs-recorded-since')).body.toString(), '2026-11-29T10:00:00.000Z');
  assert.deepEqual((await listed(images)).length, 1, 'the mark is no image');
});
