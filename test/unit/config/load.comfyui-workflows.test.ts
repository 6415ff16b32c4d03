import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { recheckWorkflow } from '../../../src/config/workflows.js';
import { bindingProblems, parseWorkflow } from '../../../src/domain/comfy-workflows.js';
import { bindWorkflow } from '../../../src/providers/remote/comfyui/graph.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * A ComfyUI model's workflow is read and checked when the config loads: a file that does not
 * parse, the editor format, or a binding to a node or input that does not exist fails the load
 * (and so a hot reload keeps the old config), never the first request.
 */
const SAMPLE = readFileSync(new URL('../../../config/workflows/txt2img.json', import.meta.url), 'utf8');
const BINDINGS = {
  prompt: '6.inputs.text',
  negativePrompt: '7.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

async function configDir(t: Parameters<typeof tempDir>[0], workflow: string, model: Record<string, unknown> = {}) {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'workflows'));
  await writeFile(join(dir, 'workflows', 'flow.json'), workflow);
  const config = {
    providers: {
      'gpu-1': { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188', headers: { authorization: 'Bearer proxy' } },
    },
    models: {
      flux: {
        providers: ['gpu-1'],
        workflow: 'workflows/flow.json',
        bindings: BINDINGS,
        price: { perImage: '0.01', perInput: '0.002' },
        capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true, nativeSize: '1024x1024' },
        ...model,
      },
    },
  };
  const file = join(dir, 'imgtask.json');
  await writeFile(file, JSON.stringify(config));
  return { dir, file };
}

test('a ComfyUI model loads its workflow relative to the config file and keeps its bindings', async (t) => {
  const { dir, file } = await configDir(t, SAMPLE);
  const config = loadConfig({ file, env: {} });
  const loaded = config.workflows['models.flux'];
  assert.equal(loaded.file, join(dir, 'workflows', 'flow.json'));
  assert.equal(loaded.graph['3'].class_type, 'KSampler');
  assert.deepEqual(loaded.bindings, BINDINGS);
  assert.deepEqual(config.providers['gpu-1'], {
    type: 'comfyui',
    baseUrl: 'http://127.0.0.1:8188',
    headers: { authorization: 'Bearer proxy' },
    concurrency: 2,
    timeoutMs: 600_000,
    pollIntervalMs: 1000,
    maxQueued: null,
  });
  assert.deepEqual(recheckWorkflow(loaded), [], 'doctor finds it well');
});

test('the sample config in config/ loads', () => {
  const config = loadConfig({
    file: new URL('../../../config/comfyui.example.json', import.meta.url).pathname,
    env: {},
  });
  assert.ok(config.workflows['models.sd15']);
});

for (const [label, workflow, model, pattern] of [
  ['a file that is not JSON', '{"3": ', {}, /models\.flux\.workflow: .*flow\.json: not valid JSON/],
  ['the editor format', JSON.stringify({ nodes: [], links: [] }), {}, /Export \(API\)/],
  [
    'a binding to a missing node',
    SAMPLE,
    { bindings: { ...BINDINGS, seed: '99.inputs.seed' } },
    /bindings\.seed: no node "99"/,
  ],
  [
    'a binding to a missing input',
    SAMPLE,
    { bindings: { ...BINDINGS, width: '5.inputs.wide' } },
    /bindings\.width: node "5" \(EmptyLatentImage\) has no input "wide"/,
  ],
  [
    'a binding that is not a node input path',
    SAMPLE,
    { bindings: { ...BINDINGS, prompt: 'six' } },
    /bindings\.prompt: a node input such as/,
  ],
  ['no bindings', SAMPLE, { bindings: undefined }, /names its workflow .* and its bindings/],
  [
    'more inputs than image bindings',
    SAMPLE,
    { capabilities: { maxInputs: 1, supports4k: false, negativePrompt: true } },
    /maxInputs is 1 but bindings\.images names 0/,
  ],
  ['a missing file', SAMPLE, { workflow: 'workflows/none.json' }, /cannot read .*none\.json: ENOENT/],
] as const) {
  test(`a ComfyUI model's config fails at load with ${label}`, async (t) => {
    const { file } = await configDir(t, workflow, model);
    assert.throws(
      () => loadConfig({ file, env: {} }),
      (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
    );
  });
}

test('a workflow on a model no ComfyUI server serves is refused', async (t) => {
  const { file } = await configDir(t, SAMPLE, { providers: ['placeholder'] });
  assert.throws(
    () => loadConfig({ file, env: {} }),
    (err: unknown) =>
      err instanceof ConfigError &&
      /workflow and bindings are for models served by a ComfyUI provider/.test(err.message),
  );
});

test('doctor sees a workflow file broken after the config loaded', async (t) => {
  const { dir, file } = await configDir(t, SAMPLE);
  const loaded = loadConfig({ file, env: {} }).workflows['models.flux'];
  const graph = JSON.parse(SAMPLE);
  delete graph['7'];
  await writeFile(join(dir, 'workflows', 'flow.json'), JSON.stringify(graph));
  const problems = recheckWorkflow(loaded);
  assert.equal(problems.length, 1);
  assert.match(problems[0], /bindings\.negativePrompt: no node "7"/);
});

test('binding fills a copy of the workflow and leaves unbound inputs as they were', () => {
  const graph = parseWorkflow(SAMPLE);
  const bound = bindWorkflow(
    graph,
    { ...BINDINGS, images: ['6.inputs.clip'] },
    { prompt: 'a red fox', seed: 42, width: 768, height: 512, batchSize: 1, images: ['sub/in.png'] },
  );
  assert.equal(bound['6'].inputs.text, 'a red fox');
  assert.equal(bound['3'].inputs.seed, 42);
  assert.equal(bound['5'].inputs.width, 768);
  assert.equal(bound['5'].inputs.height, 512);
  assert.equal(bound['6'].inputs.clip, 'sub/in.png');
  assert.equal(bound['7'].inputs.text, 'text, watermark', 'no negative prompt sent: the workflow keeps its own');
  assert.equal(graph['6'].inputs.text, parseWorkflow(SAMPLE)['6'].inputs.text, 'the loaded workflow is not changed');
  assert.deepEqual(bindingProblems(graph, BINDINGS), []);
});
