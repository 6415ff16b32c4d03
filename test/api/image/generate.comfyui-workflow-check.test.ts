import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { eventually, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The service checks the workflows a ComfyUI server serves against its node catalogue when it
 * first reaches the server, and logs what does not fit without refusing anything.
 */
test('the first time the service reaches a ComfyUI server, its workflows are checked against GET /object_info and the result logged', async (t) => {
  const fake = await startFakeComfyUi(t);
  const dir = await tempDir(t);
  const file = join(dir, 'flow.json');
  await writeFile(file, JSON.stringify(txt2imgWorkflow()));
  const model = (bindings: Record<string, string>) => ({
    providers: ['gpu-1'],
    workflow: file,
    bindings,
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  });
  const h = await startService(t, {
    config: {
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50 } },
      // `steps` binds the prompt to the sampler's steps (an INT): it starts all the same.
      models: {
        flux: model({ prompt: '6.inputs.text', seed: '3.inputs.seed' }),
        steps: model({ prompt: '3.inputs.steps' }),
      },
    },
  });
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', model: 'flux', output: { format: 'png' } },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId);
  assert.equal(task.status, 'completed');
  await eventually(() => h.logs.some((m) => m.includes('fit gpu-1')));
  assert.ok(h.logs.includes('comfyui: workflows of models.flux fit gpu-1'), h.logs.join('\n'));
  assert.ok(
    h.logs.includes(
      'comfyui: the workflow of models.steps does not fit gpu-1, its items will fail there: bindings.prompt: node "3" (KSampler) input "steps" is INT, not text (STRING)',
    ),
    h.logs.join('\n'),
  );
  assert.equal(fake.requests.filter((r) => r.path === '/object_info').length, 1, 'checked once');
});
