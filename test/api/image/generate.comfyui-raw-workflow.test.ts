import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { animatedWebpWorkflow, type FakeComfyUi, startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Raw graphs over the public API: a whole API-format graph posted in `workflow` needs a key with
 * the opt-in scope workflow:raw (a key made without a scopes list lacks it) and a model with
 * allowRawWorkflows; it is queued as posted (the model's bindings set where it has their input),
 * and one the server cannot run fails INVALID_INPUT, free, before it is queued.
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
  const model = (allowRawWorkflows: boolean) => ({
    provider: 'gpu',
    workflow: join(dir, 'flux.json'),
    bindings: BINDINGS,
    allowRawWorkflows,
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
  });
  return startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      models: { open: model(true), closed: model(false) },
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
          allowRawWorkflows: true,
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

/** A key of the harness account holding `scopes`, made through POST /api-key. */
async function keyWith(h: Harness, scopes: string[]): Promise<string> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body: { scopes } });
  assert.equal(res.status, 201, res.text);
  return res.json.data.apiKey.scopes.includes('workflow:raw')
    ? res.json.data.raw
    : assert.fail('the key holds workflow:raw when asked for by name');
}

/** The posted graph: txt2img whose KSampler runs 7 steps with another sampler, and an extra node ComfyUI ignores. */
function postedGraph(): Record<string, { class_type: string; inputs: Record<string, unknown> }> {
  const graph = txt2imgWorkflow() as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  graph['3'].inputs.steps = 7;
  graph['3'].inputs.sampler_name = 'dpmpp_2m';
  return graph;
}

const prompts = (fake: FakeComfyUi) => fake.requests.filter((r) => r.path === '/prompt' && r.method === 'POST');

test('ComfyUI raw workflow: refused without the scope (a key made without a scopes list lacks it) and for a model without allowRawWorkflows, nothing reserved', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const before = await accountOf(h);
  const keys = await h.request('GET', '/api-key', { auth: h.token });
  assert.ok(
    keys.json.data.every((key: { scopes: string[] }) => !key.scopes.includes('workflow:raw')),
    'the default key does not hold it',
  );
  const made = await h.request('POST', '/api-key', { auth: h.token, body: {} });
  assert.ok(
    !made.json.data.apiKey.scopes.includes('workflow:raw'),
    'a key created with no scopes list does not get it',
  );

  const noScope = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', model: 'open', workflow: postedGraph() },
  });
  assert.equal(noScope.status, 403, noScope.text);
  assert.equal(noScope.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(noScope.json.scopes.required, ['workflow:raw']);

  const raw = await keyWith(h, ['image:generate', 'tasks:read', 'workflow:raw']);
  const closed = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'closed', workflow: postedGraph() },
  });
  assert.equal(closed.status, 400, closed.text);
  assert.equal(closed.json.code, 'VALIDATION_ERROR');
  assert.match(closed.json.message, /model closed does not take a posted workflow/);

  const editorFormat = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'open', workflow: { nodes: [], links: [] } },
  });
  assert.equal(editorFormat.status, 400, editorFormat.text);
  assert.match(editorFormat.json.message, /^workflow: this is the editor format/);
  const tooMany = Object.fromEntries(
    Array.from({ length: 501 }, (_, i) => [String(i + 1), { class_type: 'PrimitiveString', inputs: { value: 'x' } }]),
  );
  const big = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'open', workflow: tooMany },
  });
  assert.equal(big.status, 400, big.text);
  assert.match(big.json.message, /more than 500 nodes/);

  assert.deepEqual(await accountOf(h), before, 'nothing reserved');
  assert.equal(prompts(fake).length, 0, 'nothing queued');
});

test('ComfyUI raw workflow: with the scope and the flag, the posted graph is queued as posted (the prompt and seed bound into it), priced as the model says', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const raw = await keyWith(h, ['image:generate', 'tasks:read', 'workflow:raw']);
  const created = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'open', seed: 9, workflow: postedGraph() },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.equal(task.cost, '0.01');
  const [queued] = prompts(fake).map(
    (r) => (r.json as { prompt: Record<string, { class_type: string; inputs: Record<string, unknown> }> }).prompt,
  );
  const expected = postedGraph();
  expected['6'].inputs.text = 'a fox';
  expected['3'].inputs.seed = 9;
  expected['5'].inputs = { ...expected['5'].inputs, width: 512, height: 512, batch_size: 1 };
  assert.deepEqual(queued, expected);
  assert.ok(
    fake.requests.some((r) => r.path === '/object_info'),
    'checked against the server first',
  );
});

test('ComfyUI raw workflow: a graph naming a class the server lacks fails INVALID_INPUT before it is queued, not retried, free', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const raw = await keyWith(h, ['image:generate', 'tasks:read', 'workflow:raw']);
  const graph = postedGraph();
  graph['12'] = { class_type: 'NotInstalledAnywhere', inputs: { images: ['8', 0] } };
  const task = await waitForTask(
    h,
    (
      await h.request('POST', '/image/generate', {
        auth: raw,
        body: { prompt: 'a fox', model: 'open', workflow: graph },
      })
    ).json.data.taskId,
  );
  const [image] = task.result.images;
  assert.equal(image.status, 'failed');
  assert.equal(image.error.code, 'INVALID_INPUT');
  assert.match(image.error.message, /NotInstalledAnywhere/);
  assert.equal(task.cost, '0', 'free');
  assert.equal(prompts(fake).length, 0, 'never queued, not retried');
  assert.equal((await accountOf(h)).reserved, '0');
});

test('ComfyUI raw workflow: a video model with the flag takes a posted graph too, with its bindings set where the graph has their input', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const raw = await keyWith(h, ['video:generate', 'tasks:read', 'workflow:raw']);
  const graph = animatedWebpWorkflow() as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  graph['3'].inputs.steps = 5;
  const created = await h.request('POST', '/video/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'clip', seed: 3, duration_s: 1, fps: 8, workflow: graph },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.result.videos[0].status, 'success', JSON.stringify(task.result));
  const [queued] = prompts(fake).map(
    (r) => (r.json as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt,
  );
  assert.equal(queued['3'].inputs.steps, 5, 'the posted value');
  assert.equal(queued['5'].inputs.batch_size, 8, 'frames bound: 1 s × 8 fps');
  assert.equal(queued['6'].inputs.text, 'a fox');
  const plain = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a fox', model: 'clip', duration_s: 1, fps: 8, workflow: graph },
  });
  assert.equal(plain.status, 403, 'the default key lacks the scope');
});

test('ComfyUI raw workflow: items checked at the same time share one read of the node catalogue (GET /object_info)', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const raw = await keyWith(h, ['image:generate', 'tasks:read', 'workflow:raw']);
  const created = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'open', seed: 1, count: 3, workflow: postedGraph() },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.deepEqual(
    task.result.images.map((image: { status: string }) => image.status),
    ['success', 'success', 'success'],
    JSON.stringify(task.result),
  );
  // The service's own check of its workflows when it first reaches the server reads it once too.
  assert.ok(
    fake.requests.filter((r) => r.path === '/object_info').length <= 2,
    'one read for the items, however many wait for it',
  );
});

test('ComfyUI raw workflow: a posted video graph without the frames binding’s input keeps its own frame count, and its clip is not held to the frames asked for', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake);
  const raw = await keyWith(h, ['video:generate', 'tasks:read', 'workflow:raw']);
  // The latent (and its batch: the frames) under another node id: the model's frames binding, 5.inputs.batch_size, has
  // no input here.
  const graph = animatedWebpWorkflow() as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  graph['50'] = { ...graph['5'], inputs: { ...graph['5'].inputs, batch_size: 4, width: 64, height: 48 } };
  delete graph['5'];
  graph['3'].inputs.latent_image = ['50', 0];
  const created = await h.request('POST', '/video/generate', {
    auth: raw,
    body: { prompt: 'a fox', model: 'clip', seed: 3, duration_s: 2, fps: 8, workflow: graph },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId, 30_000);
  const [video] = task.result.videos;
  assert.equal(video.status, 'success', JSON.stringify(task.result));
  assert.equal(video.duration_s, 0.5, 'the 4 frames the posted graph made, at 8 fps');
});
