import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/load.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/** Worker threads running in this process (each embedded model runs in one). */
const workerThreads = () => (process.report.getReport() as { workers: unknown[] }).workers.length;

/** A real server, no injected providers; only the NSFW model enabled unless `embedded` says otherwise. */
async function start(t: import('node:test').TestContext, embedded: object = {}) {
  const dataDir = await tempDir(t);
  const logs: string[] = [];
  const config = loadConfig({
    env: {},
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      embedded: {
        nsfw: { enabled: true, timeoutMs: 60_000 },
        backgroundRemoval: { enabled: false, model: 'small', threads: 1, timeoutMs: 60_000 },
        altText: { enabled: false, ocr: false },
        ...embedded,
      },
    },
  });
  const server = await startServer({ dataDir, config, log: (m) => logs.push(m) });
  closeBeforeRemoval(dataDir, () => server.close());
  return { server, logs };
}

test('at start the enabled model loads in its thread without any request, a disabled one does not, and a rating then uses that thread', async (t) => {
  const before = workerThreads();
  const { server, logs } = await start(t);
  await eventually(() => workerThreads() === before + 1, 10_000);
  await eventually(() => logs.some((m) => m.startsWith('models: nsfw rating loaded in the background')), 60_000);
  // The preload runs one model after another: with the rating's done, so is every other one.
  assert.equal(workerThreads(), before + 1, 'background removal and alt text (disabled) started no thread');
  assert.deepEqual(
    logs.filter((m) => m.startsWith('models:')),
    [logs.find((m) => m.startsWith('models: nsfw rating loaded'))],
  );

  const account = await server.services.accounts.create('preload', 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id, name: 'preload' });
  const image = await sharp({
    create: {
      width: 128,
      height: 96,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(image)]), 'noise.png');
  const uploaded = await fetch(`${server.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}` },
    body: form,
  });
  const upload = (await uploaded.json()) as { data: { files: { id: string }[] } };
  assert.equal(uploaded.status, 201, JSON.stringify(upload));
  const rated = await send(server.url, 'POST', '/image/rate', {
    auth: raw,
    body: { mode: 'nsfw_sfw', urls: [upload.data.files[0].id] },
  });
  assert.equal(rated.status, 200, rated.text);
  assert.equal(rated.json.data.results[0].status, 'success', rated.text);
  assert.equal(workerThreads(), before + 1, 'the rating used the preloaded thread');

  await server.close();
  await eventually(() => workerThreads() === before, 10_000);
});

test('closing the server while a model is still preloading ends its thread, and nothing is loaded after', async (t) => {
  const before = workerThreads();
  const { server, logs } = await start(t);
  await eventually(() => workerThreads() === before + 1, 10_000);
  await server.close();
  await eventually(() => workerThreads() === before, 10_000);
  // The load was cut short: no failure is reported for it (it would only log had it finished first).
  assert.ok(!logs.some((m) => m.includes('did not preload')), logs.join('\n'));
});

test('with embedded.preload off, no model loads at start', async (t) => {
  const before = workerThreads();
  const { server, logs } = await start(t, { preload: false });
  // A request answered is past the moment a preload would have started its thread (in startServer).
  assert.equal((await send(server.url, 'GET', '/health')).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 200)); // a started thread shows in the report within about 100 ms
  assert.equal(workerThreads(), before);
  assert.ok(!logs.some((m) => m.startsWith('models:')));
});
