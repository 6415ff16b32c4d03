import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LoadedWorkflow, WorkflowGraph } from '../../../../../src/domain/comfy-workflows.js';
import { comfyHttp } from '../../../../../src/providers/remote/comfyui/comfy-http.js';
import { readObjectInfo } from '../../../../../src/providers/remote/comfyui/object-info.js';
import { outputNodeProblems } from '../../../../../src/providers/remote/comfyui/output-node-check.js';
import { twoOutputWorkflow } from '../../../../fakes/comfyui/workflows.js';
import { startFakeComfyUi } from '../../../../fakes/comfyui.js';

/**
 * Doctor: each node whose files are a model's items must be an output node (OUTPUT_NODE) on the server, per its GET
 * /object_info.
 */
test('output nodes the server runs as such pass; a named node of a class that is no output node is a problem', async (t) => {
  const fake = await startFakeComfyUi(t);
  const info = await readObjectInfo(comfyHttp({ name: 'gpu-1', baseUrl: fake.baseUrl, headers: {} }));
  const graph = twoOutputWorkflow() as unknown as WorkflowGraph;
  const workflow = (outputs?: string[]): LoadedWorkflow => ({
    file: '/flow.json',
    graph,
    bindings: { prompt: '6.inputs.text' },
    ...(outputs && { outputs }),
  });
  assert.deepEqual(outputNodeProblems(info, workflow(['9', '12'])), []);
  assert.deepEqual(outputNodeProblems(info, workflow()), [], 'one output per run: nothing to check');
  const [problem, ...rest] = outputNodeProblems(info, workflow(['9', '10']));
  assert.equal(rest.length, 0);
  assert.match(problem, /outputs: node "10" \(ImageInvert\) is not an output node on the server/);
});
