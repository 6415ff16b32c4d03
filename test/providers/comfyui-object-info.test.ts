import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowBindings, WorkflowGraph } from '../../src/domain/comfy-workflows.js';
import { comfyHttp } from '../../src/providers/remote/comfyui/comfy-http.js';
import {
  graphProblems,
  type ObjectInfo,
  parameterProblems,
  readObjectInfo,
} from '../../src/providers/remote/comfyui/object-info.js';
import { animatedWebpWorkflow, img2imgWorkflow, startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';

/** Workflows checked against a node catalogue as GET /object_info serves it (the fake's, read over HTTP). */
const BINDINGS: WorkflowBindings = {
  prompt: '6.inputs.text',
  negativePrompt: '7.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

let catalogue: ObjectInfo | undefined;
async function info(): Promise<ObjectInfo> {
  if (catalogue) return catalogue;
  const fake = await startFakeComfyUi(null);
  try {
    catalogue = await readObjectInfo(comfyHttp({ name: 'comfy1', baseUrl: fake.baseUrl, headers: {} }));
  } finally {
    await fake.close();
  }
  return catalogue;
}

const graph = (make: () => unknown): WorkflowGraph => make() as WorkflowGraph;

test('graphProblems: the default txt2img workflow with every binding fits the server', async () => {
  assert.deepEqual(graphProblems(await info(), graph(txt2imgWorkflow), BINDINGS), []);
  assert.deepEqual(graphProblems(await info(), graph(txt2imgWorkflow)), []);
});

test('graphProblems: img2img (an image bound to LoadImage) and a WebP animation (fps on a FLOAT, frames on an INT) fit', async () => {
  assert.deepEqual(
    graphProblems(await info(), graph(img2imgWorkflow), {
      prompt: '6.inputs.text',
      seed: '3.inputs.seed',
      images: ['10.inputs.image'],
    }),
    [],
  );
  assert.deepEqual(
    graphProblems(await info(), graph(animatedWebpWorkflow), {
      prompt: '6.inputs.text',
      frames: '5.inputs.batch_size',
      fps: '9.inputs.fps',
    }),
    [],
  );
});

test('graphProblems: a node class the server does not have is named with its node', async () => {
  const workflow = graph(txt2imgWorkflow);
  workflow['12'] = { class_type: 'UpscaleWithMagic', inputs: { image: ['8', 0] } };
  assert.deepEqual(graphProblems(await info(), workflow, BINDINGS), [
    'node "12" (UpscaleWithMagic): the node class UpscaleWithMagic is not installed on the server',
  ]);
});

test('graphProblems: a required input missing is named with its node and class', async () => {
  const workflow = graph(txt2imgWorkflow);
  delete workflow['3'].inputs.steps;
  assert.deepEqual(graphProblems(await info(), workflow, BINDINGS), [
    'node "3" (KSampler): the required input "steps" is missing',
  ]);
});

test('graphProblems: prompt bound to an INT input is refused as not text', async () => {
  const problems = graphProblems(await info(), graph(txt2imgWorkflow), { ...BINDINGS, prompt: '3.inputs.steps' });
  assert.deepEqual(problems, ['bindings.prompt: node "3" (KSampler) input "steps" is INT, not text (STRING)']);
});

test('graphProblems: seed bound to a STRING input is refused as not INT', async () => {
  const problems = graphProblems(await info(), graph(txt2imgWorkflow), { ...BINDINGS, seed: '7.inputs.text' });
  assert.deepEqual(problems, ['bindings.seed: node "7" (CLIPTextEncode) input "text" is STRING, not INT']);
});

test('graphProblems: a combo (a list of values) is not text, and a STRING is not an image name', async () => {
  const combo = graphProblems(await info(), graph(txt2imgWorkflow), {
    ...BINDINGS,
    negativePrompt: '3.inputs.sampler_name',
  });
  assert.deepEqual(combo, [
    'bindings.negativePrompt: node "3" (KSampler) input "sampler_name" is a list of values (COMBO), not text (STRING)',
  ]);
  const image = graphProblems(await info(), graph(img2imgWorkflow), {
    prompt: '6.inputs.text',
    images: ['7.inputs.text'],
  });
  assert.equal(image.length, 1);
  assert.match(
    image[0],
    /^bindings\.images\[0\]: node "7" \(CLIPTextEncode\) input "text" is STRING, not an image name/,
  );
});

test('graphProblems: a "COMBO" type with options is a list of values too', async () => {
  const base = await info();
  const withCombo: ObjectInfo = {
    ...base,
    LoadImage: {
      ...base.LoadImage,
      input: { required: { image: ['COMBO', { options: ['a.png'], image_upload: true }] } },
    },
  };
  assert.deepEqual(
    graphProblems(withCombo, graph(img2imgWorkflow), { prompt: '6.inputs.text', images: ['10.inputs.image'] }),
    [],
  );
  assert.equal(graphProblems(withCombo, graph(img2imgWorkflow), { prompt: '10.inputs.image' }).length, 1);
});

test('graphProblems: binding over a link is fine; a link to a node not in the workflow is not', async () => {
  const workflow = graph(txt2imgWorkflow);
  workflow['6'].inputs.text = ['20', 0];
  assert.deepEqual(graphProblems(await info(), workflow, BINDINGS), [], 'the binding replaces the link');
  assert.deepEqual(graphProblems(await info(), workflow, { ...BINDINGS, prompt: '7.inputs.text' }), [
    'node "6" (CLIPTextEncode): input "text" links to node "20", which is not in the workflow',
  ]);
});

test('graphProblems: a bound input the class does not declare, a link past the outputs, and no output node', async () => {
  const workflow = graph(txt2imgWorkflow);
  workflow['6'].inputs.txt = 'a cat';
  workflow['8'].inputs.vae = ['4', 5];
  assert.deepEqual(graphProblems(await info(), workflow, { ...BINDINGS, prompt: '6.inputs.txt' }), [
    'node "8" (VAEDecode): input "vae" links to output 5 of node "4" (CheckpointLoaderSimple), which has 3 output(s)',
    'bindings.prompt: node "6" (CLIPTextEncode) input "txt" is not an input of CLIPTextEncode on the server (it has: text, clip)',
  ]);
  const noOutput = graph(txt2imgWorkflow);
  delete noOutput['9'];
  assert.deepEqual(graphProblems(await info(), noOutput, BINDINGS), [
    'the workflow has no output node (such as SaveImage): the server would run nothing',
  ]);
});

test('parameterProblems: declared parameters against the inputs they bind (type, enum values offered, bounds)', async () => {
  const fits = parameterProblems(await info(), graph(txt2imgWorkflow), {
    steps: { binding: '3.inputs.steps', type: 'integer', min: 1, max: 60, default: 12 },
    cfg: { binding: '3.inputs.cfg', type: 'number', min: 1, max: 20, default: 7 },
    sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler', 'dpmpp_2m'], default: 'euler' },
  });
  assert.deepEqual(fits, []);
  const problems = parameterProblems(await info(), graph(txt2imgWorkflow), {
    steps: { binding: '3.inputs.steps', type: 'string', default: '12' },
    sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler', 'turbo_magic'], default: 'euler' },
    denoise: { binding: '3.inputs.denoise', type: 'number', min: 0, max: 2, default: 1 },
    style: { binding: '6.inputs.style', type: 'string', default: 'x' },
  });
  assert.deepEqual(problems, [
    'parameters.steps: node "3" (KSampler) input "steps" is INT, not text (STRING) for a parameter of type string',
    'parameters.sampler: node "3" (KSampler) input "sampler_name" does not offer "turbo_magic" on the server',
    'parameters.denoise: node "3" (KSampler) input "denoise" takes at most 1, but the parameter\'s max is 2',
    'parameters.style: node "6" (CLIPTextEncode) input "style" is not an input of CLIPTextEncode on the server (it has: text, clip)',
  ]);
});
