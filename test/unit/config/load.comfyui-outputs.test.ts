import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { recheckWorkflow } from '../../../src/config/workflows.js';
import { saveNodes } from '../../../src/domain/comfy-outputs.js';
import type { WorkflowGraph } from '../../../src/domain/comfy-workflows.js';
import { twoOutputWorkflow } from '../../fakes/comfyui/workflows.js';
import { txt2imgWorkflow } from '../../fakes/comfyui.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The output nodes of an image model's workflow, known at load without the server: every image
 * save node by default (never a preview, nor a dangling helper node), or the model's `outputs`,
 * each a node of the workflow.
 */
const BINDINGS = { prompt: '6.inputs.text', seed: '3.inputs.seed' };

async function load(t: TestContext, graph: unknown, model: Record<string, unknown> = {}) {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'flow.json'), JSON.stringify(graph));
  const file = join(dir, 'imgtask.json');
  await writeFile(
    file,
    JSON.stringify({
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188' }, local: { type: 'placeholder' } },
      models: {
        flux: {
          provider: 'gpu-1',
          workflow: 'flow.json',
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
          ...model,
        },
      },
    }),
  );
  return () => loadConfig({ file, env: {} });
}

test('save nodes: image savers no node links to, in node id order; previews and a dangling PrimitiveString are not', () => {
  const graph = twoOutputWorkflow() as unknown as WorkflowGraph;
  graph['14'] = { class_type: 'PreviewImage', inputs: { images: ['8', 0] } };
  graph['15'] = { class_type: 'PrimitiveString', inputs: { value: 'a prompt' } };
  graph['2'] = { class_type: 'SaveAnimatedWEBP', inputs: { images: ['8', 0], filename_prefix: 'x', fps: 8 } };
  assert.deepEqual(saveNodes(graph), ['2', '9', '12']);
  assert.deepEqual(saveNodes(txt2imgWorkflow() as unknown as WorkflowGraph), ['9']);
});

test('a workflow with two save nodes makes two outputs per run; one save node keeps one output (no list)', async (t) => {
  assert.deepEqual((await load(t, twoOutputWorkflow()))().workflows['models.flux'].outputs, ['9', '12']);
  assert.equal((await load(t, txt2imgWorkflow()))().workflows['models.flux'].outputs, undefined);
});

test('outputs names the nodes that count, in its order; doctor checks them again', async (t) => {
  const config = (await load(t, twoOutputWorkflow(), { outputs: ['12', '9'] }))();
  const workflow = config.workflows['models.flux'];
  assert.deepEqual(workflow.outputs, ['12', '9']);
  assert.deepEqual(recheckWorkflow(workflow), []);
  await writeFile(workflow.file, JSON.stringify(txt2imgWorkflow()));
  assert.match(recheckWorkflow(workflow).join('\n'), /outputs: no node "12" in the workflow/);
});

test('outputs naming no node of the workflow, a preview, or a node twice fail the load', async (t) => {
  const graph = twoOutputWorkflow() as Record<string, unknown>;
  graph['14'] = { class_type: 'PreviewImage', inputs: { images: ['8', 0] } };
  assert.throws(
    await load(t, graph, { outputs: ['9', '99'] }),
    (err: Error) =>
      err instanceof ConfigError && /models\.flux\.outputs: no node "99" in the workflow/.test(err.message),
  );
  assert.throws(await load(t, graph, { outputs: ['14'] }), /node "14" \(PreviewImage\) writes no output file/);
  assert.throws(await load(t, graph, { outputs: ['9', '9'] }), /node "9" is named twice/);
  assert.throws(await load(t, graph, { outputs: [] }), ConfigError);
});

test('outputs on a model no ComfyUI provider serves fail the load', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'imgtask.json');
  await writeFile(
    file,
    JSON.stringify({
      providers: { local: { type: 'placeholder' } },
      models: {
        flat: {
          provider: 'local',
          outputs: ['9'],
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
        },
      },
    }),
  );
  assert.throws(
    () => loadConfig({ file, env: {} }),
    /models\.flat: outputs are for models served by a ComfyUI provider/,
  );
});
