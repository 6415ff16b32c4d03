import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { consoleSignIn } from '../helpers/console.js';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The playground draws a field for each declared parameter of each model (never its binding),
 * and a post sends the chosen model's filled fields as `parameters`, typed as the model declares
 * them; empty fields keep the defaults, other models' fields are not sent.
 */
test('the playground draws the models’ parameters and sends those of the chosen model', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const dir = await tempDir(t);
  await writeFile(join(dir, 'flux.json'), JSON.stringify(txt2imgWorkflow()));
  // As JSON: the config takes JSON values.
  const model = (parameters: object) =>
    JSON.parse(
      JSON.stringify({
        provider: 'gpu',
        workflow: join(dir, 'flux.json'),
        bindings: { prompt: '6.inputs.text', seed: '3.inputs.seed' },
        parameters,
        price: { perImage: '0.01', perInput: '0' },
        capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
      }),
    );
  const h = await startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      defaultModel: 'flux',
      models: {
        flux: model({
          steps: {
            binding: '3.inputs.steps',
            type: 'integer',
            min: 1,
            max: 60,
            default: 12,
            description: 'sampling steps',
          },
          sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler', 'dpmpp_2m'], default: 'euler' },
        }),
        other: model({ cfg: { binding: '3.inputs.cfg', type: 'number', default: 7 } }),
      },
    },
  });
  const c = await consoleSignIn(h);
  const page = await c.get('/console/playground?type=image.generate');
  assert.equal(page.status, 200);
  assert.match(page.text, /<legend>Parameters of flux<\/legend>/);
  assert.match(
    page.text,
    /<input type="number" id="image-generate-parameter-flux-steps-n" name="parameter:flux:steps:n" step="1" min="1" max="60" placeholder="default \(12\)"/,
  );
  assert.match(page.text, /<option value="dpmpp_2m">dpmpp_2m<\/option>/);
  assert.match(page.text, /sampling steps/);
  assert.match(page.text, /<legend>Parameters of other<\/legend>/);
  assert.ok(!page.text.includes('inputs.steps'), 'no binding is shown');

  const res = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: 'a fox',
    model: 'auto',
    parameters_auto: 'flux',
    'parameter:flux:steps:n': '30',
    'parameter:flux:sampler:s': '',
    'parameter:other:cfg:n': '3',
  });
  assert.equal(res.status, 303, res.text);
  const taskId = /tsk_[0-9A-Za-z]+/.exec(res.location ?? '')?.[0];
  const task = (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data;
  assert.deepEqual(
    task.request.parameters,
    { steps: 30 },
    'auto stands for flux: its filled field, as a number; the empty one and the other model’s are not sent',
  );

  const refused = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: 'a fox',
    model: 'flux',
    'parameter:flux:steps:n': '99',
  });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.text, /parameters\.steps must be at most 60/);
  assert.match(refused.text, /name="parameter:flux:steps:n"[^>]*value="99"/, 'the typed value is kept');
});
