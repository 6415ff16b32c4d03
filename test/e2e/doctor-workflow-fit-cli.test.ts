// `imgtask doctor` checks each ComfyUI model's workflow against each of its servers' node
// catalogue (GET /object_info), and reports a workflow file that does not load as one problem
// among its checks (the ledger, storage and servers are still checked) on either store.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { testStoreConfig } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const model = (workflow: string, bindings: Record<string, string>) => ({
  providers: ['gpu-1'],
  workflow,
  bindings,
  price: { perImage: '0.01', perInput: '0' },
  capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
});

test('doctor names each workflow problem a server would refuse (model, server, node, class, input) and exits 1', async (t) => {
  const fake = await startFakeComfyUi(t);
  const data = await tempDir(t);
  await writeFile(join(data, 'good.json'), JSON.stringify(txt2imgWorkflow()));
  const custom = txt2imgWorkflow() as Record<string, any>;
  custom['12'] = { class_type: 'UpscaleWithMagic', inputs: { image: ['8', 0] } };
  await writeFile(join(data, 'custom.json'), JSON.stringify(custom));
  const config = join(data, 'imgtask.json');
  const models = {
    flux: model('good.json', { prompt: '6.inputs.text', seed: '3.inputs.seed' }),
    magic: model('custom.json', { prompt: '6.inputs.text' }),
    // prompt bound to the sampler's steps (an INT).
    steps: model('good.json', { prompt: '3.inputs.steps' }),
  };
  await writeFile(
    config,
    JSON.stringify({
      ...(await testStoreConfig(t)),
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl } },
      models,
    }),
  );
  assert.equal(
    (await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme', '--credit', '5'])).code,
    0,
  );

  const report = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(report.code, 1, report.stdout + report.stderr);
  assert.equal(report.json.ok, false);
  assert.equal(report.json.ledger.ok, true);
  assert.deepEqual(report.json.problems, [
    'workflow models.magic on gpu-1: node "12" (UpscaleWithMagic): the node class UpscaleWithMagic is not installed on the server',
    'workflow models.steps on gpu-1: bindings.prompt: node "3" (KSampler) input "steps" is INT, not text (STRING)',
  ]);
  const flux = report.json.engines.workflows.find((w: { model: string }) => w.model === 'models.flux');
  assert.deepEqual(flux.servers, [{ provider: 'gpu-1', checked: true, problems: [] }]);
  assert.equal(flux.ok, true);
  assert.equal(
    fake.requests.filter((r) => r.path === '/object_info').length,
    1,
    'the catalogue is read once per server',
  );

  const text = await runCli(['--data', data, '--config', config, 'doctor']);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^workflow models\.flux ok: .*good\.json, fits gpu-1$/m);
  assert.match(
    text.stdout,
    /^workflow models\.steps does not fit gpu-1:\n {2}- bindings\.prompt: node "3" \(KSampler\) input "steps" is INT, not text \(STRING\)$/m,
  );
});

test('doctor with a workflow file that does not parse still checks the ledger, storage and servers, and reports the file as one problem', async (t) => {
  const fake = await startFakeComfyUi(t);
  const data = await tempDir(t);
  await writeFile(join(data, 'good.json'), JSON.stringify(txt2imgWorkflow()));
  await writeFile(join(data, 'broken.json'), '{ "3": { "class_type": ');
  const config = join(data, 'imgtask.json');
  const models = {
    flux: model('good.json', { prompt: '6.inputs.text' }),
    sdxl: model('broken.json', { prompt: '6.inputs.text' }),
  };
  const storeConfig = await testStoreConfig(t);
  await writeFile(
    config,
    JSON.stringify({
      ...storeConfig,
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl } },
      models: { flux: models.flux },
    }),
  );
  assert.equal(
    (await runCli(['--data', data, '--config', config, 'accounts', 'create', 'acme', '--credit', '5'])).code,
    0,
  );
  await writeFile(
    config,
    JSON.stringify({ ...storeConfig, providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl } }, models }),
  );

  const report = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(report.code, 1, report.stdout + report.stderr);
  assert.equal(report.json.ok, false);
  assert.equal(report.json.ledger.ok, true);
  assert.equal(report.json.ledger.checked.accounts, 1, 'the ledger was read');
  assert.equal(report.json.storage.ok, true);
  assert.equal(report.json.engines.comfyui[0].ok, true);
  assert.equal(report.json.problems.length, 1, report.json.problems.join('\n'));
  assert.match(report.json.problems[0], /^workflow models\.sdxl: .*broken\.json: not valid JSON/);
  const flux = report.json.engines.workflows.find((w: { model: string }) => w.model === 'models.flux');
  assert.deepEqual(
    flux.servers,
    [{ provider: 'gpu-1', checked: true, problems: [] }],
    'the other workflows are checked against the server',
  );

  // Any other command still refuses the config, naming the file.
  const other = await runCli(['--data', data, '--config', config, 'accounts', 'list']);
  assert.notEqual(other.code, 0);
  assert.match(other.stdout + other.stderr, /models\.sdxl\.workflow: .*broken\.json: not valid JSON/);
});
