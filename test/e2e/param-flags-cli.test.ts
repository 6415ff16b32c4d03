import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { animatedWebpWorkflow, type FakeComfyUi, startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import type { Harness } from '../helpers/harness.js';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `imgtask generate --param` and `imgtask video --param` against a fake ComfyUI: values typed by
 * the model's declared parameters reach the queued graph; a wrong type, an unknown name or a
 * malformed flag exits 2 with nothing created; the server's own refusal is printed as any API error.
 */
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

async function serviceOn(t: TestContext, fake: FakeComfyUi): Promise<Harness> {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'flux.json'), JSON.stringify(txt2imgWorkflow()));
  await writeFile(join(dir, 'clip.json'), JSON.stringify(animatedWebpWorkflow()));
  const image = {
    provider: 'gpu',
    bindings: BINDINGS,
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
  };
  return startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      defaultModel: 'flux',
      defaultVideoModel: 'clip',
      models: {
        flux: {
          ...image,
          workflow: join(dir, 'flux.json'),
          parameters: {
            steps: { binding: '3.inputs.steps', type: 'integer', min: 1, max: 60, default: 12 },
            sampler: {
              binding: '3.inputs.sampler_name',
              type: 'enum',
              values: ['euler', 'dpmpp_2m'],
              default: 'euler',
            },
            cfg: { binding: '3.inputs.cfg', type: 'number', min: 1, max: 20, default: 7 },
          },
        },
        plain: { ...image, workflow: join(dir, 'flux.json') },
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
          parameters: { steps: { binding: '3.inputs.steps', type: 'integer', min: 1, max: 10, default: 2 } },
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

/** The KSampler inputs of every graph queued, in order. */
const queued = (fake: FakeComfyUi) =>
  fake.requests
    .filter((r) => r.path === '/prompt' && r.method === 'POST')
    .map((r) => (r.json as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt['3'].inputs);

test('--param: an integer, a number and an enum typed by the declared parameters reach the queued graph (the default model when --model is left out)', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const run = await runCli(
    [
      'generate',
      'a fox',
      '--param',
      'steps=30',
      '--param',
      'sampler=dpmpp_2m',
      '--param',
      'cfg=4.5',
      '--watch',
      '--json',
    ],
    env,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.json.status, 'completed', run.stdout);
  assert.equal(run.json.request.model, 'auto', 'no --model: the default model, flux, typed the values');
  assert.deepEqual(
    run.json.request.parameters,
    { steps: 30, sampler: 'dpmpp_2m', cfg: 4.5 },
    'numbers are sent as JSON numbers',
  );
  const [graph] = queued(fake);
  assert.deepEqual([graph.steps, graph.sampler_name, graph.cfg], [30, 'dpmpp_2m', 4.5]);

  const video = await runCli(
    ['video', 'a fox', '--model', 'clip', '--duration', '1', '--fps', '8', '--param', 'steps=3', '--watch', '--json'],
    env,
  );
  assert.equal(video.code, 0, video.stderr);
  assert.deepEqual(video.json.request.parameters, { steps: 3 });
  assert.equal(queued(fake)[1].steps, 3, 'the video graph got the bound value');
});

test('--param refused before anything is created: a non-number for an integer, an unknown name, a model without parameters, a flag without =', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const cases: [string[], RegExp][] = [
    [['--model', 'flux', '--param', 'steps=many'], /--param steps must be a number, not "many"/],
    [['--param', 'steps=2.5'], /--param steps must be a whole number/],
    [
      ['--model', 'flux', '--param', 'stepz=3'],
      /--param stepz: model flux has no parameter "stepz" \(it has: steps, sampler, cfg\)/,
    ],
    [['--model', 'plain', '--param', 'steps=3'], /model plain declares no parameters/],
    [['--model', 'flux', '--param', 'steps'], /--param must be NAME=VALUE, not "steps"/],
  ];
  for (const [args, message] of cases) {
    const run = await runCli(['generate', 'a fox', ...args], env);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  const video = await runCli(['video', 'a fox', '--param', 'steps=lots'], env);
  assert.equal(video.code, 2, video.stderr);
  assert.match(video.stderr, /--param steps must be a number/);
  const tasks = await h.request('GET', '/tasks', { auth: h.apiKey });
  assert.equal(tasks.json.data.length, 0, 'no task was created');
  assert.equal(queued(fake).length, 0, 'nothing queued');
});

test("--param out of the declared range: the server's VALIDATION_ERROR is printed, exit 1 as for any refused request", async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const run = await runCli(['generate', 'a fox', '--model', 'flux', '--param', 'steps=99'], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /^imgtask: VALIDATION_ERROR: parameters\.steps must be at most 60$/m);
  const enumRun = await runCli(['generate', 'a fox', '--model', 'flux', '--param', 'sampler=heun', '--json'], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(enumRun.code, 1, enumRun.stderr);
  assert.equal(enumRun.json.error.code, 'VALIDATION_ERROR');
  assert.match(enumRun.json.error.message, /parameters\.sampler must be one of/);
  assert.equal(queued(fake).length, 0, 'nothing queued');
});
