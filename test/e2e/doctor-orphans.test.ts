// `imgtask doctor`'s storage inventory: the files and bytes of images and videos, the orphans no
// task or upload references (a warning, not a failure), and `--fix` removing those older than an
// hour, on local storage and on a bucket; the files of an older version's uploads are kept.
import assert from 'node:assert/strict';
import { mkdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { JsonObject } from '../../src/config/load.js';
import { randomId } from '../../src/domain/ids.js';
import { runCli } from '../helpers/cli.js';
import { type Harness, startService, testStoreConfig, waitForTask } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { startS3 } from '../helpers/s3.js';
import { tempDir } from '../helpers/temp-dir.js';

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const shardOf = (name: string) => name.slice(4, 6);

/** A storage under test: its config, and how a file appears in it (planted) or is looked for. */
async function storageOf(t: TestContext, kind: 'local' | 's3') {
  if (kind === 'local') {
    const path = (h: Harness, name: string) =>
      join(h.dataDir, name.startsWith('img_') ? 'images' : 'videos', shardOf(name), name);
    return {
      config: {} as JsonObject,
      async plant(h: Harness, name: string, at: Date) {
        await mkdir(join(path(h, name), '..'), { recursive: true });
        await writeFile(path(h, name), Buffer.alloc(2048, 1));
        await utimes(path(h, name), at, at);
      },
      age: (h: Harness, name: string, at: Date) => utimes(path(h, name), at, at),
      has: (h: Harness, name: string) =>
        stat(path(h, name)).then(
          () => true,
          () => false,
        ),
    };
  }
  const s3 = await startS3(t);
  const key = (name: string) => `fleet/${name.startsWith('img_') ? 'images' : 'videos'}/${shardOf(name)}/${name}`;
  return {
    config: {
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
    } as JsonObject,
    async plant(_h: Harness, name: string, at: Date) {
      await s3.put(key(name), Buffer.alloc(2048, 1));
      await s3.age(key(name), at);
    },
    age: (_h: Harness, name: string, at: Date) => s3.age(key(name), at),
    has: async (_h: Harness, name: string) => (await s3.keys(key(name))).includes(key(name)),
  };
}

async function upload(h: Harness): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 80, height: 60 }))]), 'mine.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as any).data.files[0].service_url.split('/').pop();
}

for (const kind of ['local', 's3'] as const) {
  test(`${kind} storage: doctor counts the files and reports orphans as a warning; --fix removes those older than an hour, keeps the young and every referenced one`, async (t) => {
    const storage = await storageOf(t, kind);
    const h = await startService(t, { config: storage.config });
    const created = await h.request('POST', '/image/generate', {
      auth: h.apiKey,
      body: { prompt: 'a lighthouse at dusk' },
    });
    const task = await waitForTask(h, created.json.data.taskId, 30_000);
    const output = task.result.images[0].service_url.split('/').pop() as string;
    const uploaded = await upload(h);
    // Referenced files, however old, are never orphans.
    await storage.age(h, output, ago(5 * HOUR));
    await storage.age(h, uploaded, ago(5 * HOUR));
    const oldImage = `${randomId('img')}.png`;
    const youngImage = `${randomId('img')}.webp`;
    const oldVideo = `${randomId('vid')}.mp4`;
    await storage.plant(h, oldImage, ago(2 * HOUR));
    await storage.plant(h, youngImage, ago(60_000));
    await storage.plant(h, oldVideo, ago(3 * HOUR));

    const configFile = join(await tempDir(t), 'config.json');
    await writeFile(configFile, JSON.stringify({ ...h.storeConfig, ...storage.config }));
    const doctor = (...args: string[]) => runCli(['--data', h.dataDir, '--config', configFile, 'doctor', ...args]);

    const found = await doctor('--json');
    assert.equal(found.code, 0, `orphans are a warning, not a failure: ${found.stdout}${found.stderr}`);
    assert.equal(found.json.ok, true);
    assert.deepEqual(found.json.problems, []);
    assert.deepEqual(found.json.warnings.length, 1);
    assert.match(
      found.json.warnings[0],
      /^storage: 3 orphan file\(s\) \(6\.0 KiB\) that no task or upload references; imgtask doctor --fix removes the 2 older than an hour$/,
    );
    const inventory = found.json.storage.inventory;
    assert.equal(inventory.location, kind === 'local' ? h.dataDir : 's3://images/fleet/');
    assert.equal(inventory.images.files, 4, 'the output, the upload and two orphans');
    assert.equal(inventory.videos.files, 1);
    assert.deepEqual(
      { ...inventory.orphans, examples: [...inventory.orphans.examples].sort() },
      { files: 3, bytes: 3 * 2048, removable: 2, examples: [oldImage, youngImage, oldVideo].sort() },
    );
    assert.equal(inventory.unrecorded.files, 0, 'a new install: every file it stored is recorded');

    const fixed = await doctor('--fix');
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /^files: 4 images \([\d.]+ KiB\), 1 videos and posters \(2\.0 KiB\) in /m);
    assert.match(fixed.stdout, /^fix: removed 2 orphan file\(s\) \(4\.0 KiB\), kept 1 younger than an hour$/m);
    assert.deepEqual(
      await Promise.all([oldImage, oldVideo, youngImage, output, uploaded].map((name) => storage.has(h, name))),
      [false, false, true, true, true],
      'the old orphans are gone; the young one and the referenced files stay',
    );
    assert.equal((await fetch(`${h.url}/images/${output}`)).status, 200, 'the output is still served');

    const after = (await doctor('--json')).json;
    assert.deepEqual([after.storage.inventory.orphans.files, after.storage.inventory.orphans.removable], [1, 0]);
    assert.equal(after.storage.inventory.images.files, 3);
  });
}

test("files stored before this version recorded every file (an older version's uploads) are counted apart, never removed", async (t) => {
  const data = await tempDir(t);
  const config = join(data, 'config.json');
  await writeFile(config, JSON.stringify(await testStoreConfig(t)));
  // An upload an older version stored, with no record of whose it is.
  const legacy = `${randomId('img')}.png`;
  const path = join(data, 'images', shardOf(legacy), legacy);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, Buffer.alloc(3000, 7));
  await utimes(path, ago(30 * 24 * HOUR), ago(30 * 24 * HOUR));
  assert.equal(
    (await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme', '--credit', '5'])).code,
    0,
  );

  const fixed = await runCli(['--data', data, '--config', config, 'doctor', '--fix', '--json']);
  assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
  const { inventory } = fixed.json.storage;
  assert.deepEqual([inventory.unrecorded.files, inventory.unrecorded.bytes], [1, 3000]);
  assert.equal(inventory.orphans.files, 0);
  assert.deepEqual(inventory.fixed, { removed: 0, removedBytes: 0, keptYoung: 0, failed: [] });
  assert.ok(await stat(path), 'still there');
  const text = await runCli(['--data', data, '--config', config, 'doctor']);
  assert.match(
    text.stdout,
    /^unrecorded: 1 files \(2\.9 KiB\) stored before \d{4}-\d\d-\d\dT[\d:.]+Z, when files were not recorded yet \(older uploads\): kept$/m,
  );
});
