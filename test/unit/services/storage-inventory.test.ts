import assert from 'node:assert/strict';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { randomId } from '../../../src/domain/ids.js';
import { createStorageInventory } from '../../../src/services/storage-inventory.js';
import { IMAGE_BLOBS, LocalBlobStore, POSTER_BLOBS, VIDEO_BLOBS } from '../../../src/store/blobs.js';
import type { TaskRecord, UploadRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store-contract.js';
import { tempDir } from '../../helpers/temp-dir.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const HOUR = 3_600_000;

function task(id: string, fields: Partial<TaskRecord>): TaskRecord {
  return {
    id,
    type: 'image.generate',
    status: 'completed',
    accountId: 'acc_1',
    apiKeyId: null,
    request: {},
    items: [],
    estimate: 0,
    cost: 0,
    result: null,
    createdAt: '2026-11-29T00:00:00.000Z',
    updatedAt: '2026-11-29T00:00:00.000Z',
    ...fields,
  };
}

/** Local blob stores in a temp dir, each file written `ageMs` before NOW. */
async function storage(t: Parameters<typeof tempDir>[0], recordedSince = 0) {
  const root = await tempDir(t);
  const blobs = {
    images: new LocalBlobStore(join(root, 'images'), IMAGE_BLOBS),
    videos: new LocalBlobStore(join(root, 'videos'), VIDEO_BLOBS),
    posters: new LocalBlobStore(join(root, 'videos'), POSTER_BLOBS),
    location: root,
    recordedSince: async () => recordedSince,
  };
  const put = async (kind: 'images' | 'videos' | 'posters', name: string, bytes: number, ageMs: number) => {
    await blobs[kind].put(name, Buffer.alloc(bytes));
    const folder = kind === 'images' ? 'images' : 'videos';
    const at = new Date(NOW - ageMs);
    await utimes(join(root, folder, name.slice(4, 6), name), at, at);
  };
  const has = async (kind: 'images' | 'videos' | 'posters', name: string) => (await blobs[kind].stat(name)) !== null;
  return { blobs, put, has };
}

const storeOf = (tasks: TaskRecord[], uploads: UploadRecord[] = []) =>
  ({ tasks: { all: async () => tasks }, uploads: { all: async () => uploads } }) as unknown as Pick<
    Store,
    'tasks' | 'uploads'
  >;

test('files referenced by a task (its files, or the service URLs of a task stored before files were recorded), an upload or a request are no orphans; a removed task references nothing', async (t) => {
  const { blobs, put, has } = await storage(t);
  const [recorded, legacyOutput, uploaded, input, removed, orphan] = Array.from(
    { length: 6 },
    () => `${randomId('img')}.png`,
  );
  const video = `${randomId('vid')}.mp4`;
  const poster = video.replace('.mp4', '.poster.webp');
  for (const name of [recorded, legacyOutput, uploaded, input, removed, orphan])
    await put('images', name, 100, 2 * HOUR);
  await put('videos', video, 1000, 2 * HOUR);
  await put('posters', poster, 50, 2 * HOUR);

  const tasks = [
    task('tsk_1', { items: [{ status: 'success', files: [{ name: recorded, bytes: 100 }] }] }),
    // Stored before items recorded their files: its result's service_url is its reference.
    task('tsk_2', {
      result: {
        images: [
          {
            status: 'success',
            id: legacyOutput.slice(0, -4),
            service_url: `https://imgtask.example/images/${legacyOutput}`,
          },
        ],
      },
    }),
    // An input given by id (an older version's upload, which has no record).
    task('tsk_3', { type: 'image.alt', request: { urls: [input.slice(0, -4)] } }),
    // A pending video: its item's result names it; the poster goes with its video.
    task('tsk_4', {
      type: 'video.generate',
      status: 'pending',
      items: [{ status: 'success', result: { service_url: `http://127.0.0.1:1/videos/${video}` } }],
    }),
    task('tsk_5', {
      dataRemovedAt: '2026-11-29T11:00:00.000Z',
      items: [{ status: 'success', files: [{ name: removed, bytes: 100 }] }],
    }),
  ];
  const uploads: UploadRecord[] = [
    {
      id: uploaded.slice(0, -4),
      accountId: 'acc_1',
      apiKeyId: null,
      fileName: uploaded,
      bytes: 100,
      createdAt: '2026-11-29T00:00:00.000Z',
    },
  ];
  const inventory = await createStorageInventory({ store: storeOf(tasks, uploads), blobs, now: () => NOW }).take();

  assert.deepEqual(inventory.images, { files: 6, bytes: 600 });
  assert.deepEqual(inventory.videos, { files: 2, bytes: 1050 }, 'videos with their posters');
  assert.deepEqual(
    { ...inventory.orphans, examples: [...inventory.orphans.examples].sort() },
    { files: 2, bytes: 200, removable: 2, examples: [removed, orphan].sort() },
  );
  assert.equal(inventory.fixed, undefined, 'nothing removed without fix');
  assert.ok(await has('images', orphan));
});

test('fix removes orphans older than an hour, keeps younger ones and everything referenced', async (t) => {
  const { blobs, put, has } = await storage(t);
  const [kept, old, young] = Array.from({ length: 3 }, () => `${randomId('img')}.webp`);
  const video = `${randomId('vid')}.webp`;
  const poster = video.replace('.webp', '.poster.webp');
  await put('images', kept, 10, 5 * HOUR);
  await put('images', old, 20, HOUR + 1000);
  await put('images', young, 30, HOUR - 60_000);
  await put('videos', video, 40, 3 * HOUR);
  await put('posters', poster, 5, 3 * HOUR);
  const tasks = [task('tsk_1', { items: [{ status: 'success', files: [{ name: kept, bytes: 10 }] }] })];

  const inventory = await createStorageInventory({ store: storeOf(tasks), blobs, now: () => NOW }).take({ fix: true });
  assert.equal(inventory.orphans.files, 4, 'the old and young image, the video and its poster');
  assert.equal(inventory.orphans.removable, 3);
  assert.deepEqual(inventory.fixed, { removed: 3, removedBytes: 65, keptYoung: 1, failed: [] });
  assert.deepEqual(
    await Promise.all([
      has('images', kept),
      has('images', old),
      has('images', young),
      has('videos', video),
      has('posters', poster),
    ]),
    [true, false, true, false, false],
  );

  const again = await createStorageInventory({ store: storeOf(tasks), blobs, now: () => NOW }).take();
  assert.deepEqual([again.images.files, again.orphans.files, again.videos.files], [2, 1, 0]);
});

test('unreferenced files written before the storage recorded every file are counted apart and never removed', async (t) => {
  const since = NOW - 24 * HOUR;
  const { blobs, put, has } = await storage(t, since);
  const [before, after] = [`${randomId('img')}.jpg`, `${randomId('img')}.jpg`];
  await put('images', before, 70, 48 * HOUR);
  await put('images', after, 80, 2 * HOUR);
  const inventory = await createStorageInventory({ store: storeOf([]), blobs, now: () => NOW }).take({ fix: true });
  assert.deepEqual(inventory.unrecorded, { files: 1, bytes: 70, before: new Date(since).toISOString() });
  assert.deepEqual([inventory.orphans.files, inventory.orphans.examples], [1, [after]]);
  assert.equal(inventory.fixed?.removed, 1);
  assert.deepEqual([await has('images', before), await has('images', after)], [true, false]);
});

test('fix removes nothing while the store refuses writes or space is short: an item may hold a file stored before its record', async (t) => {
  const { blobs, put, has } = await storage(t);
  const orphan = `${randomId('img')}.png`;
  await put('images', orphan, 100, 3 * HOUR);
  const held = createStorageInventory({
    store: storeOf([]),
    blobs,
    now: () => NOW,
    fixHeld: async () => 'the store refuses writes (disk full)',
  });
  const inventory = await held.take({ fix: true });
  assert.deepEqual(inventory.fixed, {
    removed: 0,
    removedBytes: 0,
    keptYoung: 0,
    failed: [],
    held: 'the store refuses writes (disk full)',
  });
  assert.equal(await has('images', orphan), true, 'the old file is kept while the hold lasts');
  const free = createStorageInventory({ store: storeOf([]), blobs, now: () => NOW, fixHeld: async () => null });
  assert.equal((await free.take({ fix: true })).fixed?.removed, 1);
  assert.equal(await has('images', orphan), false);
});
