import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { animatedWebpWorkflow, type FakeComfyUi, startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Parameters a ComfyUI model declares, over the public API: listed by GET /models without their
 * bindings, set per request and bound into the queued graph (defaults where left out), refused
 * with the parameter named and nothing reserved, and priced by their documented rule.
 */
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};
const PARAMETERS = {
  steps: {
    binding: '3.inputs.steps',
    type: 'integer',
    min: 1,
    max: 60,
    default: 12,
    description: 'sampling steps',
    price: { perUnit: '0.0001' },
  },
  sampler: { binding: '3.inputs.sampler_name', type: 'enum', values: ['euler', 'dpmpp_2m'], default: 'euler' },
  cfg: { binding: '3.inputs.cfg', type: 'number', min: 1, max: 20, default: 7 },
  prefix: { binding: '9.inputs.filename_prefix', type: 'string', maxLength: 20, default: 'imgtask' },
};

async function serviceOn(t: TestContext, fake: FakeComfyUi): Promise<Harness> {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'flux.json'), JSON.stringify(txt2imgWorkflow()));
  await writeFile(join(dir, 'plain.json'), JSON.stringify(txt2imgWorkflow()));
  await writeFile(join(dir, 'clip.json'), JSON.stringify(animatedWebpWorkflow()));
  return startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      models: {
        flux: {
          provider: 'gpu',
          workflow: join(dir, 'flux.json'),
          bindings: BINDINGS,
          parameters: PARAMETERS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
        plain: {
          provider: 'gpu',
          workflow: join(dir, 'plain.json'),
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
      videoModels: {
        clip: {
          provider: 'gpu',
          workflow: join(dir, 'clip.json'),
          bindings: {
            prompt: '6.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            frames: '5.inputs.batch_size',
            fps: '9.inputs.fps',
          },
          parameters: {
            steps: {
              binding: '3.inputs.steps',
              type: 'integer',
              min: 1,
              max: 10,
              default: 2,
              price: { perUnit: '0.001' },
            },
          },
          price: { perSecond: '0.01' },
          capabilities: {
            maxInputs: 0,
            negativePrompt: false,
            maxDurationS: 2,
            maxFps: 8,
            maxSize: '256x256',
            nativeSize: '256x144',
          },
        },
      },
    },
  });
}

/** The KSampler's and SaveImage's inputs of every graph queued, in order. */
const queued = (fake: FakeComfyUi) =>
  fake.requests
    .filter((r) => r.path === '/prompt' && r.method === 'POST')
    .map((r) => (r.json as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt)
    .map((graph): Record<string, unknown> => ({ ...graph['3'].inputs, prefix: graph['9'].inputs.filename_prefix }));

test('ComfyUI parameters: GET /models lists them without bindings; a request binds its values and the defaults into the queued graph', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const models = await h.request('GET', '/models', { auth: h.apiKey });
  const flux = models.json.data.find((m: { id: string }) => m.id === 'flux');
  assert.deepEqual(flux.parameters.steps, {
    type: 'integer',
    min: 1,
    max: 60,
    default: 12,
    description: 'sampling steps',
    price: { perUnit: '0.0001' },
  });
  assert.deepEqual(flux.parameters.sampler, { type: 'enum', values: ['euler', 'dpmpp_2m'], default: 'euler' });
  assert.ok(!JSON.stringify(models.json).includes('inputs.'), 'no binding is shown');
  assert.equal(
    models.json.data.find((m: { id: string }) => m.id === 'plain').parameters,
    undefined,
    'a model without parameters lists none',
  );
  const videoModels = await h.request('GET', '/video/models', { auth: h.apiKey });
  assert.deepEqual(videoModels.json.data.find((m: { id: string }) => m.id === 'clip').parameters, {
    steps: { type: 'integer', min: 1, max: 10, default: 2, price: { perUnit: '0.001' } },
  });

  const sent = { steps: 30, sampler: 'dpmpp_2m', cfg: 4.5 };
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', model: 'flux', seed: 5, parameters: sent },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.status, 'completed', JSON.stringify(task));
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.deepEqual(task.request.parameters, sent, 'the task keeps what the client sent');
  const [graph] = queued(fake);
  assert.equal(graph.steps, 30);
  assert.equal(graph.sampler_name, 'dpmpp_2m');
  assert.equal(graph.cfg, 4.5);
  assert.equal(graph.prefix, 'imgtask', 'a parameter left out is bound to its default');

  const defaults = await waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a fox', model: 'flux', seed: 6 } }))
      .json.data.taskId,
  );
  assert.equal(defaults.result.images[0].status, 'success');
  const [, second] = queued(fake);
  assert.deepEqual(
    [second.steps, second.sampler_name, second.cfg, second.prefix],
    [12, 'euler', 7, 'imgtask'],
    'every default is bound, not the workflow’s own values',
  );
});

test('ComfyUI parameters: each kind of bad value is 400 VALIDATION_ERROR naming the parameter, with nothing queued or reserved', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const before = await accountOf(h);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['flux', { stepz: 3 }, /parameters\.stepz: .*no parameter "stepz"/],
    ['flux', { steps: '20' }, /parameters\.steps must be an integer/],
    ['flux', { steps: 20.5 }, /parameters\.steps must be an integer/],
    ['flux', { steps: 0 }, /parameters\.steps must be at least 1/],
    ['flux', { steps: 61 }, /parameters\.steps must be at most 60/],
    ['flux', { cfg: true }, /parameters\.cfg must be a number/],
    ['flux', { sampler: 'heun' }, /parameters\.sampler must be one of "euler", "dpmpp_2m"/],
    ['flux', { prefix: 'x'.repeat(21) }, /parameters\.prefix must be at most 20 characters/],
    ['plain', { steps: 20 }, /model plain takes no parameters/],
  ];
  for (const [model, parameters, message] of cases) {
    const res = await h.request('POST', '/image/generate', {
      auth: h.apiKey,
      body: { prompt: 'a fox', model, parameters },
    });
    assert.equal(res.status, 400, `${JSON.stringify(parameters)}: ${res.text}`);
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    assert.match(res.json.message, message);
  }
  const video = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', model: 'clip', duration_s: 1, fps: 8, parameters: { steps: 11 } },
  });
  assert.equal(video.status, 400, video.text);
  assert.match(video.json.message, /parameters\.steps must be at most 10/);
  assert.deepEqual(await accountOf(h), before, 'nothing reserved or charged');
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 0, 'nothing queued');
});

test('ComfyUI parameters: a priced parameter adds value × perUnit to each image (each second of video), in the estimate, the reserve and the charge', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const h = await serviceOn(t, fake);
  const estimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.generate', request: { prompt: 'a fox', model: 'flux', count: 2, parameters: { steps: 30 } } },
  });
  assert.equal(estimate.status, 200, estimate.text);
  assert.deepEqual(estimate.json.data.items, ['0.013', '0.013'], '0.01 + 30 × 0.0001 per image');
  const defaulted = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.generate', request: { prompt: 'a fox', model: 'flux' } },
  });
  assert.deepEqual(defaulted.json.data.items, ['0.0112'], 'the default (12 steps) is priced when left out');
  const videoEstimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: {
      type: 'video.generate',
      request: { prompt: 'a fox', model: 'clip', duration_s: 2, fps: 8, parameters: { steps: 5 } },
    },
  });
  assert.deepEqual(videoEstimate.json.data.items, ['0.03'], '(0.01 + 5 × 0.001) per second × 2 s');

  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', model: 'flux', count: 2, seed: 1, parameters: { steps: 30 } },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal((await accountOf(h)).reserved, '0.026', 'the reserve uses the request’s value');
  fake.releaseJobs();
  const task = await waitForTask(h, created.json.data.taskId);
  assert.deepEqual(
    task.result.images.map((image: { status: string; cost: string }) => [image.status, image.cost]),
    [
      ['success', '0.013'],
      ['success', '0.013'],
    ],
  );
  assert.equal(task.cost, '0.026');
});
