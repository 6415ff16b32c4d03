// `imgtask doctor --json`: the top-level `ok` is the whole verdict, the one the exit code gives;
// each section (ledger, storage, engines) carries its own beside it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { testStoreConfig } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

test('doctor --json with a ComfyUI server down: ok false (exit 1), the ledger ok beside the engines that are not', async (t) => {
  const fake = await startFakeComfyUi(t);
  const data = await tempDir(t);
  await writeFile(join(data, 'flow.json'), JSON.stringify(txt2imgWorkflow()));
  const config = join(data, 'imgtask.json');
  const model = {
    providers: ['gpu-1'],
    workflow: 'flow.json',
    bindings: { prompt: '6.inputs.text', seed: '3.inputs.seed' },
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  };
  await writeFile(
    config,
    JSON.stringify({
      ...(await testStoreConfig(t)),
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl } },
      models: { flux: model },
    }),
  );
  assert.equal(
    (await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme', '--credit', '5'])).code,
    0,
  );

  const up = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(up.code, 0, up.stdout + up.stderr);
  assert.equal(up.json.ok, true);
  assert.deepEqual(up.json.problems, []);
  assert.equal(up.json.engines.ok, true);

  await fake.close();
  const down = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(down.code, 1, down.stdout + down.stderr);
  assert.equal(down.json.ok, false, 'the whole verdict, as the exit code says');
  assert.equal(down.json.ledger.ok, true, "the ledger's own verdict");
  assert.deepEqual(down.json.ledger.problems, []);
  assert.equal(down.json.ledger.checked.accounts, 1);
  assert.equal(down.json.storage.ok, true);
  assert.equal(down.json.engines.ok, false);
  assert.equal(down.json.engines.comfyui[0].ok, false);
  assert.equal(down.json.problems.length, 1);
  assert.match(down.json.problems[0], new RegExp(`^comfyui gpu-1 down: ${fake.baseUrl.replace(/[.]/g, '\\.')}: `));

  const text = await runCli(['--data', data, '--config', config, 'doctor']);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^ledger ok: 1 accounts/m);
  assert.match(text.stdout, /^comfyui gpu-1 DOWN: /m);
});

test('doctor --json below store.minFreeBytes: ok false (exit 1), the storage section not ok, the ledger ok', async (t) => {
  const data = await tempDir(t);
  const storeConfig = await testStoreConfig(t);
  const store = join(await tempDir(t), 'store.json');
  await writeFile(store, JSON.stringify(storeConfig));
  assert.equal(
    (await runCli(['--data', data, '--config', store, 'accounts', 'create', 'acme', '--credit', '5'])).code,
    0,
  );
  const config = join(data, 'floor.json');
  await writeFile(
    config,
    JSON.stringify({ ...storeConfig, store: { ...(storeConfig.store as object | undefined), minFreeBytes: 1e15 } }),
  );
  const low = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(low.code, 1, low.stdout + low.stderr);
  assert.equal(low.json.ok, false);
  assert.equal(low.json.ledger.ok, true);
  assert.equal(low.json.storage.ok, false);
  assert.equal(low.json.engines.ok, true);
  assert.ok(low.json.problems.length >= 1);
  assert.ok(
    low.json.problems.every((problem: string) => problem.startsWith('storage: ')),
    low.json.problems.join('\n'),
  );
});
