import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { parameterValueProblem } from '../../../src/domain/model-parameters.js';
import { bindWorkflow } from '../../../src/providers/remote/comfyui/graph.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * A ComfyUI model's declared parameters are checked when the config loads: a default outside its
 * bounds or values, fields that do not fit the type, a binding to no node input, a name or node
 * input of a built-in binding, and parameters (or allowRawWorkflows) on a model no ComfyUI
 * server serves all fail the load, never a request.
 */
const SAMPLE = readFileSync(new URL('../../../config/workflows/txt2img.json', import.meta.url), 'utf8');
const BINDINGS = { prompt: '6.inputs.text', seed: '3.inputs.seed' };
const STEPS = { binding: '3.inputs.steps', type: 'integer', min: 1, max: 60, default: 12 };

async function load(
  t: TestContext,
  model: Record<string, unknown>,
  provider: Record<string, unknown> = { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188' },
) {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'flow.json'), SAMPLE);
  const config = {
    providers: { gpu: provider },
    models: {
      flux: {
        provider: 'gpu',
        ...(provider.type === 'comfyui' && { workflow: 'flow.json', bindings: BINDINGS }),
        price: { perImage: '0.01', perInput: '0' },
        capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
        ...model,
      },
    },
  };
  const file = join(dir, 'imgtask.json');
  await writeFile(file, JSON.stringify(config));
  return () => loadConfig({ file, env: {} });
}

async function refused(
  t: TestContext,
  model: Record<string, unknown>,
  message: RegExp,
  provider?: Record<string, unknown>,
) {
  assert.throws(
    await load(t, model, provider),
    (err: unknown) => err instanceof ConfigError && message.test(err.message),
    `refused with ${message}`,
  );
}

test('declared parameters load with their bindings; the workflow keeps each name’s binding', async (t) => {
  const config = (
    await load(t, {
      parameters: {
        steps: STEPS,
        sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler', 'heun'], default: 'heun' },
      },
    })
  )();
  assert.deepEqual(config.workflows['models.flux'].parameters, {
    steps: '3.inputs.steps',
    sampler: '3.inputs.sampler_name',
  });
  assert.equal(config.models.flux.allowRawWorkflows, false, 'raw graphs are off unless a model allows them');
});

test('a default outside its bounds or values, or fields that do not fit the type, fail the load', async (t) => {
  await refused(
    t,
    { parameters: { steps: { ...STEPS, default: 61 } } },
    /parameters\.steps.*default 61 must be at most 60/s,
  );
  await refused(t, { parameters: { steps: { ...STEPS, default: 1.5 } } }, /default 1\.5 must be an integer/);
  await refused(t, { parameters: { steps: { ...STEPS, min: 10, max: 5 } } }, /min \(10\) is above max \(5\)/);
  await refused(
    t,
    { parameters: { sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler'], default: 'heun' } } },
    /default "heun" must be one of "euler"/,
  );
  await refused(
    t,
    { parameters: { sampler: { binding: '3.inputs.sampler_name', type: 'enum', default: 'euler' } } },
    /an enum names its values/,
  );
  await refused(
    t,
    {
      parameters: {
        sampler: { binding: '3.inputs.sampler_name', type: 'string', default: 'euler', price: { perUnit: '0.1' } },
      },
    },
    /price is for integer and number parameters/,
  );
  // Unbounded, a client's value would make any price (past what an amount holds: 500 at the estimate).
  await refused(
    t,
    {
      parameters: {
        steps: { binding: '3.inputs.steps', type: 'integer', min: 1, default: 12, price: { perUnit: '0.0002' } },
      },
    },
    /a priced parameter needs min and max/,
  );
  await refused(
    t,
    {
      parameters: {
        cfg: { binding: '3.inputs.cfg', type: 'number', max: 20, default: 7, price: { perUnit: '0.0002' } },
      },
    },
    /a priced parameter needs min and max/,
  );
  await refused(t, { parameters: { steps: { ...STEPS, max: 1e15, price: { perUnit: '1' } } } }, /priced at most/);
  await refused(
    t,
    { parameters: { text: { binding: '7.inputs.text', type: 'string', default: 'x'.repeat(2001) } } },
    /must be at most 2000 characters/,
  );
  await refused(
    t,
    { parameters: { text: { binding: '7.inputs.text', type: 'string', maxLength: 2001, default: 'x' } } },
    /maxLength/,
  );
  await refused(
    t,
    { parameters: { denoise: { binding: '3.inputs.denoise', type: 'boolean', default: 1 } } },
    /default 1 must be true or false/,
  );
});

test('a binding to no node input, or a built-in binding’s name or node input, fails the load', async (t) => {
  await refused(
    t,
    { parameters: { steps: { ...STEPS, binding: '3.inputs.stepz' } } },
    /parameters\.steps\.binding: node "3" \(KSampler\) has no input "stepz"/,
  );
  await refused(
    t,
    { parameters: { steps: { ...STEPS, binding: '99.inputs.steps' } } },
    /parameters\.steps\.binding: no node "99"/,
  );
  await refused(
    t,
    { parameters: { seed: { ...STEPS, binding: '3.inputs.steps' } } },
    /parameters\.seed: the name of a built-in binding/,
  );
  await refused(
    t,
    { parameters: { noise: { ...STEPS, binding: '3.inputs.seed' } } },
    /"3\.inputs\.seed" is bound already \(bindings\.seed\)/,
  );
  await refused(
    t,
    { parameters: { a: STEPS, b: STEPS } },
    /parameters\.b\.binding: "3\.inputs\.steps" is bound already \(parameters\.a\)/,
  );
});

test('parameters and allowRawWorkflows are for models served by ComfyUI', async (t) => {
  await refused(
    t,
    { parameters: { steps: STEPS } },
    /parameters and allowRawWorkflows are for models served by a ComfyUI provider/,
    { type: 'placeholder' },
  );
  await refused(
    t,
    { allowRawWorkflows: true },
    /parameters and allowRawWorkflows are for models served by a ComfyUI provider/,
    { type: 'placeholder' },
  );
});

test('a request value is checked against its declaration', () => {
  const steps = { binding: '3.inputs.steps', type: 'integer', min: 1, max: 60, default: 12 } as const;
  assert.equal(parameterValueProblem(steps, 12), undefined);
  assert.equal(parameterValueProblem(steps, Number.NaN), 'must be an integer');
  assert.equal(parameterValueProblem({ ...steps, type: 'number' }, Number.POSITIVE_INFINITY), 'must be a number');
  assert.equal(
    parameterValueProblem({ binding: 'x.inputs.y', type: 'boolean', default: false }, 'true'),
    'must be true or false',
  );
});

test('a posted graph gets the bindings only where it has their node input', () => {
  const graph = {
    '1': { class_type: 'PrimitiveString', inputs: { value: 'old' } },
    '2': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } },
  };
  const bindings = { prompt: '1.inputs.value', seed: '2.inputs.seed', width: '9.inputs.width' };
  const bound = bindWorkflow(
    graph,
    bindings,
    { prompt: 'new', seed: 4, width: 64 },
    { onlyExistingInputs: true, parameters: { bindings: { steps: '2.inputs.steps' }, values: { steps: 3 } } },
  );
  assert.deepEqual(bound, {
    '1': { class_type: 'PrimitiveString', inputs: { value: 'new' } },
    '2': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } },
  });
  const own = bindWorkflow(
    graph,
    bindings,
    { prompt: 'new', seed: 4 },
    { parameters: { bindings: { steps: '2.inputs.steps' }, values: { steps: 3 } } },
  );
  assert.deepEqual(
    own['2'].inputs,
    { filename_prefix: 'x', seed: 4, steps: 3 },
    'the model’s own workflow (checked at load) takes every binding',
  );
  assert.equal(graph['1'].inputs.value, 'old', 'the graph itself is not changed');
});
