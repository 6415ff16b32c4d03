import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { maintenanceOps } from '../../../src/app/admin/maintenance.js';
import type { SourceImage } from '../../../src/providers/provider-types.js';
import { JsonStore } from '../../../src/store/file/json-store.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { fillableFs } from '../../helpers/full-disk.js';
import {
  type ApiResponse,
  eventually,
  type Harness,
  startService,
  testStore,
  waitForTask,
} from '../../helpers/harness.js';
import { makeImage, makeNoisePng } from '../../helpers/images.js';

async function upload(h: Harness, data: Buffer): Promise<ApiResponse> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(data)]), 'a.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

/** Every file under `dir` whose name ends in .tmp (a write left half-done). */
async function tempFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((name) => name.endsWith('.tmp'));
}

function assertStorageFull(res: ApiResponse, what: string): void {
  assert.equal(res.status, 507, `${what}: ${res.text}`);
  assert.equal(res.json?.code, 'STORAGE_FULL', what);
  assert.match(res.json?.message ?? '', /storage/, what);
  assert.ok(Number(res.headers.get('retry-after')) > 0, `${what}: Retry-After`);
}

const createKey = (h: Harness) => h.request('POST', '/api-key', { auth: h.token, body: {} });
const liveKeyIds = async (h: Harness) =>
  ((await h.request('GET', '/api-key', { auth: h.token })).json.data as { id: string }[]).map((key) => key.id).sort();

test('a full disk under the journal: each write in flight answers 507 with Retry-After, reads and the process go on, /ready says why, and writes resume by themselves', async (t) => {
  if (testStore() !== 'file')
    return t.skip('the journal is the file store: PostgreSQL answers its own disk_full (tested at unit level)');
  const disk = fillableFs();
  // No floor: the writes reach the journal, which is what fails here.
  const h = await startService(t, { storageFs: disk, config: { store: { minFreeBytes: 0 } } });
  const kept = (await createKey(h)).json.data.apiKey.id as string;
  const before = await liveKeyIds(h);

  disk.room = 0;
  const answers = await Promise.all(Array.from({ length: 10 }, () => createKey(h)));
  for (const [n, res] of answers.entries()) assertStorageFull(res, `create ${n}`);
  assert.equal((await h.request('GET', '/health')).status, 200, 'the process is up');
  assert.deepEqual(await liveKeyIds(h), before, 'reads answer, and show none of the refused writes');
  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 503);
  assert.equal(ready.json.code, 'NOT_READY');
  assert.match(ready.json.message, /store: out of space: writes are refused/);
  assertStorageFull(await createKey(h), 'a write while refused');
  assert.deepEqual(await tempFiles(h.dataDir), []);
  const doctor = await maintenanceOps.doctor.run(h.server.services.admin, {});
  assert.match(doctor.storage.writesRefused ?? '', /out of space/, 'imgtask doctor says writes are refused');

  disk.room = null;
  await eventually(async () => (await h.request('GET', '/ready')).status === 200);
  const resumed = await createKey(h);
  assert.equal(resumed.status, 201);
  const after = [...before, resumed.json.data.apiKey.id].sort();
  assert.deepEqual(await liveKeyIds(h), after);
  assert.ok(
    h.logs.some((line) => /space is back: writes are taken again/.test(line)),
    h.logs.join('\n'),
  );

  await h.server.close();
  const reopened = await JsonStore.open({ dir: join(h.dataDir, 'store') });
  t.after(() => reopened.close());
  const stored = (await reopened.apiKeys.listLive(h.accountId)).map((key) => key.id).sort();
  assert.deepEqual(stored, after, 'a restart loads exactly the acknowledged writes');
  assert.ok(stored.includes(kept));
});

test('a full disk under an upload answers 507, leaves no temp file, /ready says so below the floor, and uploads resume once space returns', async (t) => {
  const disk = fillableFs();
  // Room for the check but not for the file: the write itself runs out, as on a filling disk.
  const h = await startService(t, { storageFs: disk, config: { store: { minFreeBytes: 4096 } } });
  const image = await makeNoisePng(96, 96);
  disk.room = 8192;
  assertStorageFull(await upload(h, image), 'the upload');
  assert.deepEqual(await tempFiles(h.dataDir), [], 'nothing half-written is left in images/');
  assert.equal((await h.request('GET', '/health')).status, 200);
  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 503);
  assert.match(ready.json.message, /storage: 0 bytes free for (store|images), below store\.minFreeBytes \(4\.0 KiB\)/);
  // Below the floor, creates and uploads are refused before anything is written.
  assertStorageFull(await upload(h, image), 'an upload below the floor');
  assertStorageFull(
    await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1 } }),
    'a create below the floor',
  );
  assert.equal(disk.refused, 1, 'only the first upload reached the disk');

  disk.room = null;
  await eventually(async () => (await h.request('GET', '/ready')).status === 200);
  const stored = await upload(h, image);
  assert.equal(stored.status, 201, stored.text);
  const served = await fetch(stored.json.data.files[0].url);
  assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);
});

test('an item whose image meets a full disk stays pending (no failure code) and completes once space returns', async (t) => {
  const disk = fillableFs();
  let entered: () => void = () => {};
  const removing = new Promise<void>((resolve) => (entered = resolve));
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const providers = {
    ...fakeProviders(),
    backgroundRemover: {
      async remove(image: SourceImage) {
        entered();
        await released;
        return { data: image.data, format: 'png' as const };
      },
    },
  };
  const h = await startService(t, { storageFs: disk, providers, config: { store: { minFreeBytes: 0 } } });
  const up = await upload(h, await makeImage({ format: 'png', width: 64, height: 64 }));
  const created = await h.request('POST', '/image/remove-background', {
    auth: h.apiKey,
    body: { url: up.json.data.files[0].id },
  });
  assert.ok(created.status === 201 || created.status === 202, created.text);
  const taskId = created.json.data.taskId as string;
  await removing;
  disk.room = 0;
  release();
  await eventually(() => h.logs.some((line) => line.includes(`task ${taskId} item 0: kept pending, storage full`)));
  const pending = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
  assert.equal(pending.json.data.status, 'pending', 'the item is not failed for lack of space');

  disk.room = null;
  const done = await waitForTask(h, taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
});
