import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LoadedWorkflow, WorkflowGraph } from '../../src/domain/comfy-workflows.js';
import { createWorkflowCheck } from '../../src/providers/remote/comfyui/workflow-check.js';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { eventually } from '../helpers/harness.js';

/** The check a ComfyUI server's workflows get each time it comes up: once per coming up, logged, never refusing. */
const workflow = (bindings: LoadedWorkflow['bindings']): LoadedWorkflow => ({
  file: '/flow.json',
  graph: txt2imgWorkflow() as WorkflowGraph,
  bindings,
});

test('a server coming up has the workflows it serves checked once: those that fit at info, each that does not at warn with its problems', async (t) => {
  const fake = await startFakeComfyUi(t);
  const lines: [string, string][] = [];
  const reached = createWorkflowCheck({
    server: { name: 'comfy1', baseUrl: fake.baseUrl, headers: {} },
    workflows: () => [
      { model: 'models.flux', workflow: workflow({ prompt: '6.inputs.text', seed: '3.inputs.seed' }) },
      { model: 'models.steps', workflow: workflow({ prompt: '3.inputs.steps' }) },
    ],
    log: (level, message) => lines.push([level, message]),
  });
  const catalogueReads = () => fake.requests.filter((r) => r.path === '/object_info').length;

  reached(true);
  reached(true);
  await eventually(() => lines.length === 2);
  assert.deepEqual(lines, [
    [
      'warn',
      'comfyui: the workflow of models.steps does not fit comfy1, its items will fail there: bindings.prompt: node "3" (KSampler) input "steps" is INT, not text (STRING)',
    ],
    ['info', 'comfyui: workflows of models.flux fit comfy1'],
  ]);
  assert.equal(catalogueReads(), 1, 'once while it stays up');

  // Unreachable, then answering again: checked again.
  reached(false);
  reached(true);
  await eventually(() => lines.length === 4);
  assert.equal(catalogueReads(), 2);
});

test('a catalogue that cannot be read is logged at warn, naming the server and the models', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.refuse(true);
  const lines: [string, string][] = [];
  const reached = createWorkflowCheck({
    server: { name: 'comfy1', baseUrl: fake.baseUrl, headers: {} },
    workflows: () => [{ model: 'models.flux', workflow: workflow({ prompt: '6.inputs.text' }) }],
    log: (level, message) => lines.push([level, message]),
  });
  reached(true);
  await eventually(() => lines.length === 1);
  assert.equal(lines[0][0], 'warn');
  assert.match(
    lines[0][1],
    /^comfyui: could not check the workflows of models\.flux against comfy1 \(GET \/object_info\): .*503/,
  );
});
