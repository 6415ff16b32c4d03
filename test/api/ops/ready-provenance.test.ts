import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { loadConfig } from '../../../src/config/load.js';
import { makeTestChain } from '../../helpers/c2pa-certs.js';
import { startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('a C2PA library that does not load: the service starts with one warning, GET /ready stays 200 saying unavailable, and outputs are stored unsigned', async (t) => {
  const h = await startService(t, { loadC2pa: async () => ({ ok: false, reason: 'index.node: wrong ELF class' }) });
  const ready = await h.request('GET', '/ready');
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.json.data.provenance, {
    state: 'unavailable',
    reason: 'the C2PA library does not load on this platform (index.node: wrong ELF class)',
  });
  assert.deepEqual(
    h.logs.filter((m) => /provenance|c2pa/i.test(m)),
    [
      'provenance: the C2PA library does not load on this platform (index.node: wrong ELF class); outputs are stored unsigned',
    ],
  );

  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', seed: 3 },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId, 30_000);
  assert.equal(task.status, 'completed', JSON.stringify(task.errors));
  assert.equal(task.result.images[0].provenance, 'unsigned');
});

test('GET /ready says signing with the local certificate, and off when provenance.enabled is false (without a log line)', async (t) => {
  const on = await startService(t);
  assert.deepEqual((await on.request('GET', '/ready')).json.data.provenance, { state: 'signing' });
  const off = await startService(t, { config: { provenance: { enabled: false } } });
  assert.deepEqual((await off.request('GET', '/ready')).json.data.provenance, { state: 'off' });
  assert.deepEqual(
    off.logs.filter((m) => /provenance|c2pa/i.test(m)),
    [],
  );
});

test('a configured certificate without extendedKeyUsage stops the start, saying why', async (t) => {
  const dir = await tempDir(t);
  const chain = await makeTestChain({ leafEku: false });
  await writeFile(join(dir, 'chain.pem'), chain.chainPem);
  await writeFile(join(dir, 'key.pem'), chain.privateKeyPem);
  const config = loadConfig({
    env: {},
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      provenance: { certificate: { file: join(dir, 'chain.pem') }, privateKey: { file: join(dir, 'key.pem') } },
    },
  });
  await assert.rejects(
    startServer({ dataDir: join(dir, 'data'), config, log: () => {} }),
    /provenance.*extendedKeyUsage/,
  );
});
