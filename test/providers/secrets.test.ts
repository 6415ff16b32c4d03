import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runAdminOp } from '../../src/app/admin/ops.js';
import { open, seal } from '../../src/services/secrets.js';
import { startFakeOpenAi } from '../fixtures/fake-openai.js';
import { BIN, runCli } from '../helpers/cli.js';
import { startService, waitForTask } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

test('sealed secrets open only with the same key and name, and refuse tampering', () => {
  const key = new Uint8Array(32).fill(3);
  const sealed = seal(key, 'openai', 'sk-live-123');
  assert.equal(open(key, 'openai', sealed), 'sk-live-123');
  assert.notEqual(seal(key, 'openai', 'sk-live-123'), sealed, 'a fresh IV each time');
  assert.throws(() => open(key, 'other-name', sealed), 'a sealed value moved to another name does not open');
  assert.throws(() => open(new Uint8Array(32).fill(4), 'openai', sealed));
  const bytes = Buffer.from(sealed, 'base64');
  bytes[bytes.length - 1] ^= 1;
  assert.throws(() => open(key, 'openai', bytes.toString('base64')));
});

test('a provider key kept in the secret store is used, updated without a restart, and never written in clear', async (t) => {
  const fake = await startFakeOpenAi(t, 'sk-from-the-store');
  const h = await startService(t, {
    config: {
      providers: {
        oa: {
          type: 'openai',
          baseUrl: fake.baseUrl,
          model: 'gpt-image-1',
          apiKeySecret: 'openai-key',
          timeoutMs: 2000,
        },
      },
      models: {
        gpt: {
          provider: 'oa',
          price: { perImage: '0.04', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
        },
      },
    },
  });
  assert.match(h.logs.join('\n'), /no secret "openai-key"/, 'a missing secret is reported');
  const before = await waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p', model: 'gpt' } })).json.data
      .taskId,
  );
  assert.equal(before.result.images[0].error.code, 'PROVIDER_ERROR', 'without the key the provider refuses');

  await runAdminOp(h.server.services.admin, 'secrets.set', { name: 'openai-key', value: 'sk-from-the-store' });
  const after = await waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p', model: 'gpt' } })).json.data
      .taskId,
  );
  assert.equal(after.result.images[0].status, 'success');
  assert.equal(fake.requests.at(-1)!.authorization, 'Bearer sk-from-the-store');

  assert.deepEqual((await runAdminOp(h.server.services.admin, 'secrets.list', {})) as unknown[], [
    {
      name: 'openai-key',
      createdAt: (await h.server.services.secrets.list())[0].createdAt,
      updatedAt: (await h.server.services.secrets.list())[0].updatedAt,
    },
  ]);
  await h.server.services.store.close().catch(() => undefined);
  for (const file of await readdir(join(h.dataDir, 'store'))) {
    const text = await readFile(join(h.dataDir, 'store', file), 'utf8').catch(() => '');
    assert.equal(text.includes('sk-from-the-store'), false, `${file} holds the key in clear`);
  }
  assert.equal((await stat(join(h.dataDir, 'keys', 'secrets.key'))).mode & 0o777, 0o600);
});

test('imgtask secrets set reads the value from standard input; list shows names only', async (t) => {
  const data = await tempDir(t);
  const child = spawn(process.execPath, [BIN, '--data', data, 'secrets', 'set', 'a1111-auth', '--json'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stdin.end('user:hunter2\n');
  assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0);
  assert.equal(JSON.parse(out).name, 'a1111-auth');
  const list = await runCli(['--data', data, 'secrets', 'list', '--json']);
  assert.deepEqual(
    list.json.map((s: { name: string }) => s.name),
    ['a1111-auth'],
  );
  assert.equal(list.stdout.includes('hunter2'), false);
  const bad = await runCli(['--data', data, 'secrets', 'delete', 'nope']);
  assert.equal(bad.code, 2);
  assert.equal((await runCli(['--data', data, 'secrets', 'delete', 'a1111-auth'])).code, 0);
});
