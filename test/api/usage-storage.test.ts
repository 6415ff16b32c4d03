// GET /usage's `storage`: the bytes an account stores now (its tasks' outputs, its uploads), on
// local storage and on a bucket; the same in `imgtask usage` and on the console's usage page.
import assert from 'node:assert/strict';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { bytesText } from '../../src/domain/bytes.js';
import { runCli } from '../helpers/cli.js';
import { consoleSignIn } from '../helpers/console.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { startS3 } from '../helpers/s3.js';
import { tempDir } from '../helpers/temp-dir.js';

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

/** The bytes of every file under `dir` (none when it is not there). */
async function bytesUnder(dir: string): Promise<number> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  let total = 0;
  for (const name of names) {
    const info = await stat(join(dir, name));
    if (info.isFile()) total += info.size;
  }
  return total;
}

/** A storage under test: its config, and what it holds in all, read from the disk or the bucket itself. */
async function storageOf(t: TestContext, kind: 'local' | 's3') {
  if (kind === 'local')
    return {
      config: SMALL_VIDEO,
      held: (h: Harness) =>
        Promise.all([bytesUnder(join(h.dataDir, 'images')), bytesUnder(join(h.dataDir, 'videos'))]).then(
          ([a, b]) => a + b,
        ),
    };
  const s3 = await startS3(t);
  return {
    config: {
      ...SMALL_VIDEO,
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
    },
    held: async () => (await s3.bytes('fleet/images/')) + (await s3.bytes('fleet/videos/')),
  };
}

async function settled(h: Harness, path: string, body: unknown): Promise<any> {
  const res = await h.request('POST', path, { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 60_000);
  assert.equal(task.status, 'completed', JSON.stringify(task.errors));
  return task;
}

async function upload(h: Harness, data: Buffer): Promise<{ id: string; bytes: number }> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(data)]), 'mine.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as any).data.files[0];
}

const storedNow = async (h: Harness, token = h.token) => {
  const res = await h.request('GET', '/usage', { auth: token });
  assert.equal(res.status, 200, res.text);
  return res.json.data.storage;
};

for (const kind of ['local', 's3'] as const) {
  test(`${kind} storage: an account's stored bytes are its outputs (images, videos, posters) and its uploads, what the ${kind === 'local' ? 'data dir' : 'bucket'} holds; a delete frees its share`, async (t) => {
    const storage = await storageOf(t, kind);
    const h = await startService(t, { config: storage.config });
    const empty = await storedNow(h);
    assert.deepEqual(
      { ...empty, at: undefined },
      { at: undefined, bytes: 0, outputs: { bytes: 0 }, uploads: { count: 0, bytes: 0 } },
    );
    assert.match(empty.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const images = await settled(h, '/image/generate', { prompt: 'a lighthouse at dusk', count: 2 });
    await settled(h, '/video/generate', { prompt: 'a red fox running through snow', duration_s: 1, fps: 8 });
    const uploaded = await upload(h, await makeImage({ width: 96, height: 64 }));
    const held = await storage.held(h);
    assert.ok(held > uploaded.bytes, 'outputs were stored');

    const full = await storedNow(h);
    assert.equal(full.bytes, held, 'every byte stored is counted, posters included');
    assert.deepEqual(full.uploads, { count: 1, bytes: uploaded.bytes });
    assert.equal(full.outputs.bytes, held - uploaded.bytes);

    // Per account: another account stores nothing.
    const other = await h.server.services.accounts.create('globex', 1_000_000);
    const { accessToken } = await h.server.services.tokens.issueAccessToken(other.id, ['manage'], 60_000);
    assert.equal((await storedNow(h, accessToken)).bytes, 0);

    // The operator's view and the console's page give the same figures.
    const configFile = join(await tempDir(t), 'config.json');
    await writeFile(configFile, JSON.stringify({ ...h.storeConfig, ...storage.config }));
    const cli = await runCli(['--data', h.dataDir, '--config', configFile, 'usage', '--account', 'acme', '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual({ ...cli.json.storage, at: undefined }, { ...full, at: undefined });
    const human = await runCli(['--data', h.dataDir, '--config', configFile, 'usage', '--account', 'acme']);
    assert.match(
      human.stdout,
      new RegExp(
        `^stored now: ${bytesText(held).replace('.', '\\.')} \\(outputs ${bytesText(held - uploaded.bytes).replace('.', '\\.')}; 1 upload, `,
        'm',
      ),
    );
    const page = await (await consoleSignIn(h)).get('/console/usage');
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2 id="stored-title">Stored now<\/h2>/);
    assert.ok(page.text.includes(`<td class="num">${bytesText(held)}</td>`), 'the total on the page');

    // Deleting the image task frees its images; deleting the upload frees it.
    const deleted = await h.request('DELETE', `/tasks/${images.id}`, { auth: h.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    const afterTask = await storedNow(h);
    assert.ok(afterTask.outputs.bytes < full.outputs.bytes && afterTask.outputs.bytes > 0, 'the video is still stored');
    assert.equal(afterTask.bytes, await storage.held(h));
    const gone = await h.request('DELETE', `/image/upload/${uploaded.id}`, { auth: h.apiKey });
    assert.equal(gone.status, 200, gone.text);
    const afterUpload = await storedNow(h);
    assert.deepEqual(afterUpload.uploads, { count: 0, bytes: 0 });
    assert.equal(afterUpload.bytes, await storage.held(h));
  });
}
