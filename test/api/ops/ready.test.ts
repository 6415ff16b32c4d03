import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApi } from '../../../src/api/app.js';
import { startServer } from '../../../src/app/server.js';
import { openServices } from '../../../src/app/services.js';
import { loadConfig } from '../../../src/config/load.js';
import { eventually, send, startService } from '../../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../../helpers/temp-dir.js';

test('GET /ready answers 200 while the store takes writes, and 503 NOT_READY naming the store once it refuses them', async (t) => {
  const h = await startService(t);
  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.json, { data: { status: 'ready', provenance: { state: 'signing' } } });
  assert.equal(ready.headers.get('cache-control'), 'no-store');

  await h.server.services.store.close(); // every write is refused from now on
  const refused = await h.request('GET', '/ready');
  assert.equal(refused.status, 503);
  assert.equal(refused.json.code, 'NOT_READY');
  assert.match(refused.json.message, /store: the store is closed/);
  assert.equal((await h.request('GET', '/health')).status, 200, '/health still answers: the process is alive');
});

test('GET /ready answers 503 until the server has started loading its models', async (t) => {
  const dataDir = await tempDir(t);
  const services = await openServices({
    dataDir,
    config: loadConfig({ env: {}, overrides: { server: { host: '127.0.0.1', port: 0 } } }),
  });
  closeBeforeRemoval(dataDir, () => services.lifecycle.close());
  const api = createApi(services.api);
  const before = await api.request('/ready');
  assert.equal(before.status, 503);
  assert.match(((await before.json()) as { message: string }).message, /models: not loading yet/);
  services.lifecycle.preloadModels();
  const after = await api.request('/ready');
  assert.notEqual(after.status, 200, 'the enabled models are loading now');
  assert.match(((await after.json()) as { message: string }).message, /models: still loading \(nsfw rating/);
});

test('with an embedded model enabled, GET /ready answers 503 naming it while it loads, then 200 once it is loaded', async (t) => {
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
      },
    },
  });
  const server = await startServer({ dataDir, config, log: (m) => logs.push(m) });
  closeBeforeRemoval(dataDir, () => server.close());
  const loading = await send(server.url, 'GET', '/ready');
  assert.equal(loading.status, 503, loading.text);
  assert.deepEqual(loading.json, { code: 'NOT_READY', message: 'not ready: models: still loading (nsfw rating)' });
  await eventually(() => logs.some((m) => m.startsWith('models: nsfw rating loaded')), 60_000);
  const ready = await send(server.url, 'GET', '/ready');
  assert.equal(ready.status, 200, ready.text);
});
