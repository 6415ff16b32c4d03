import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { access, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/load.js';
import { ALL_SCOPES } from '../../src/domain/scopes.js';
import { JsonStore } from '../../src/store/file/json-store.js';
import { fakeProviders } from '../fixtures/test-providers.js';
import { type ApiResponse, eventually, send } from '../helpers/harness.js';
import { makeImage, makeNoisePng } from '../helpers/images.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/**
 * A 12 MB tmpfs mounted for the test (unmounted after it); null, with the reason, where the machine does not allow it.
 */
async function smallDisk(t: TestContext): Promise<string | { skip: string }> {
  if (process.getuid?.() !== 0) return { skip: 'needs root to mount a tmpfs' };
  const dir = await tempDir(t, 'imgtask-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    return { skip: `mount -t tmpfs failed here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}` };
  }
  // Unmounted before the folder is removed, after whatever was opened on it is closed.
  closeBeforeRemoval(dir, async () => execFileSync('umount', ['-l', dir]));
  return dir;
}

async function upload(url: string, key: string, data: Buffer): Promise<ApiResponse> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(data)]), 'a.png');
  const res = await fetch(`${url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

/** Every answer is a success or 507 STORAGE_FULL with Retry-After: never a 500, never a dropped connection. */
function successOrFull(res: ApiResponse, what: string): boolean {
  if (res.status === 201) return true;
  assert.equal(res.status, 507, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.json.code, 'STORAGE_FULL');
  assert.ok(Number(res.headers.get('retry-after')) > 0);
  return false;
}

test('a data dir on a 12 MB tmpfs filled through the API: 507s, reads and /ready go on, nothing half-written, writes resume when space is freed, and a restart loads exactly what was acknowledged', async (t) => {
  const disk = await smallDisk(t);
  if (typeof disk !== 'string') return t.skip(disk.skip);
  // Room the test frees at the end, as an operator would.
  const ballast = join(disk, 'ballast');
  await writeFile(ballast, Buffer.alloc(2 * 1024 * 1024, 1));
  const dataDir = join(disk, 'data');
  const logs: string[] = [];
  // No floor: the disk itself runs out, under the images and then under the journal.
  const config = loadConfig({
    env: {},
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      store: { verifyPayloads: true, minFreeBytes: 0 },
      work: { shutdownGraceMs: 200, retryBaseMs: 1 },
    },
  });
  const server = await startServer({ dataDir, config, log: (m) => logs.push(m), providers: fakeProviders() });
  closeBeforeRemoval(disk, () => server.close());
  const { services } = server;
  const account = await services.accounts.create('acme', 100_000_000);
  const { raw: apiKey } = await services.apiKeys.create({ accountId: account.id, name: 'tmpfs' });
  const { accessToken } = await services.tokens.issueAccessToken(account.id, ALL_SCOPES, 3_600_000);
  const createKey = () => send(server.url, 'POST', '/api-key', { auth: accessToken, body: {} });

  const images: string[] = [];
  const keys: string[] = [];
  // Large images until one no longer fits, then small ones until none does: the disk is full.
  for (const make of [() => makeNoisePng(256, 256), () => makeImage({ format: 'png', width: 40, height: 40 })]) {
    for (let n = 0; n < 400; n++) {
      const res = await upload(server.url, apiKey, await make());
      if (!successOrFull(res, `upload ${n}`)) break;
      images.push(res.json.data.files[0].id);
    }
  }
  // Then writes that only touch the journal, until it too meets the full disk.
  let refused = false;
  for (let n = 0; n < 400 && !refused; n++) {
    const res = await createKey();
    if (successOrFull(res, `create ${n}`)) keys.push(res.json.data.apiKey.id);
    else refused = true;
  }
  assert.ok(refused, 'the journal met the full disk');
  assert.ok(images.length > 10, `${images.length} uploads fitted`);

  const inFlight = await Promise.all(Array.from({ length: 10 }, () => createKey()));
  for (const [n, res] of inFlight.entries()) assert.equal(successOrFull(res, `concurrent create ${n}`), false);
  assert.equal((await send(server.url, 'GET', '/health')).status, 200, 'the process is up');
  const listed = await send(server.url, 'GET', '/api-key', { auth: accessToken });
  assert.equal(listed.status, 200, 'reads answer');
  const ready = await send(server.url, 'GET', '/ready');
  assert.equal(ready.status, 503);
  assert.match(ready.json.message, /out of space/);
  const leftovers = (await readdir(dataDir, { recursive: true })).filter((name) => name.endsWith('.tmp'));
  assert.deepEqual(leftovers, [], 'nothing half-written is left behind');

  await unlink(ballast);
  await eventually(async () => (await send(server.url, 'GET', '/ready')).status === 200, 10_000);
  const again = await createKey();
  assert.equal(again.status, 201, again.text);
  keys.push(again.json.data.apiKey.id);
  const more = await upload(server.url, apiKey, await makeImage({ format: 'png', width: 40, height: 40 }));
  assert.equal(more.status, 201, more.text);
  images.push(more.json.data.files[0].id);

  await server.close();
  const reopened = await JsonStore.open({ dir: join(dataDir, 'store') });
  closeBeforeRemoval(disk, () => reopened.close());
  const stored = (await reopened.apiKeys.listLive(account.id)).map((key) => key.id);
  assert.deepEqual(
    stored.filter((id) => keys.includes(id)).sort(),
    [...keys].sort(),
    'every acknowledged key is there',
  );
  assert.equal(stored.length, keys.length + 1, 'and nothing else but the first key');
  for (const id of images) await access(join(dataDir, 'images', id.slice(4, 6), `${id}.png`));
});
