import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeA1111 } from '../fixtures/fake-a1111.js';
import { type FakeMode, startFakeOpenAi } from '../fixtures/fake-openai.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';

const KEY = 'sk-test-secret-0123456789';
process.env.IMGTASK_TEST_OPENAI_KEY = KEY;

const caps = { maxInputs: 4, supports4k: false, negativePrompt: false };
const openai = (baseUrl: string, extra: Record<string, unknown> = {}) => ({
  type: 'openai',
  baseUrl,
  model: 'gpt-image-1',
  apiKeyEnv: 'IMGTASK_TEST_OPENAI_KEY',
  timeoutMs: 1000,
  ...extra,
});

async function generate(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a red kite', ...body } });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 20_000);
}

async function uploaded(h: Harness): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 100, height: 100 }))]), 'a.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  return ((await res.json()) as { data: { files: { id: string }[] } }).data.files[0].id;
}

test('OpenAI images: generations with JSON and edits with multipart inputs, base64 or URL answers, sizes mapped', async (t) => {
  const fake = await startFakeOpenAi(t, KEY);
  const h = await startService(t, {
    config: {
      providers: { oa: openai(fake.baseUrl) },
      models: { gpt: { provider: 'oa', price: { perImage: '0.04', perInput: '0.01' }, capabilities: caps } },
    },
  });

  const plain = await generate(h, { model: 'gpt', size: '16:9' });
  assert.equal(plain.result.images[0].status, 'success');
  assert.equal(plain.result.images[0].size, '1024x1024', 'the size the provider produced');
  const [first] = fake.requests;
  assert.equal(first.path, '/v1/images/generations');
  assert.equal(first.authorization, `Bearer ${KEY}`);
  assert.deepEqual(
    first.json,
    { model: 'gpt-image-1', prompt: 'a red kite', n: 1, size: '1536x1024' },
    '16:9 maps to the nearest size the model takes',
  );

  const id = await uploaded(h);
  const edited = await generate(h, { model: 'gpt', inputs: [id, id] });
  assert.equal(edited.result.images[0].status, 'success');
  assert.equal(edited.result.images[0].cost, '0.06');
  const edit = fake.requests.at(-1)!;
  assert.equal(edit.path, '/v1/images/edits');
  assert.deepEqual(edit.fields, { model: 'gpt-image-1', prompt: 'a red kite', n: '1', size: '1024x1024' });
  assert.deepEqual(
    edit.files!.map((f) => [f.field, f.type]),
    [
      ['image[]', 'image/png'],
      ['image[]', 'image/png'],
    ],
  );

  fake.mode = 'url';
  const byUrl = await generate(h, { model: 'gpt' });
  assert.equal(
    byUrl.result.images[0].status,
    'success',
    'an image answered by URL on the provider host is read from there',
  );

  const record = JSON.stringify((await h.request('GET', `/tasks/${edited.id}`, { auth: h.apiKey })).json);
  assert.equal(record.includes(KEY), false, 'the provider key never appears in a task');
  assert.equal(h.logs.join('\n').includes(KEY), false, 'nor in the logs');
});

test('OpenAI images: the item seed is sent only to a provider configured with seed: true', async (t) => {
  const fake = await startFakeOpenAi(t, KEY);
  const h = await startService(t, {
    config: {
      providers: { plain: openai(fake.baseUrl), local: openai(fake.baseUrl, { model: 'sd-1.5', seed: true }) },
      models: {
        gpt: { provider: 'plain', price: { perImage: '0.04', perInput: '0' }, capabilities: caps },
        local: { provider: 'local', price: { perImage: '0.001', perInput: '0' }, capabilities: caps },
      },
    },
  });
  const plain = await generate(h, { model: 'gpt', seed: 5 });
  assert.equal(plain.result.images[0].seed, 5, 'the item reports the seed it was planned with');
  assert.equal(
    'seed' in fake.requests.at(-1)!.json,
    false,
    'OpenAI itself refuses unknown fields: not sent by default',
  );

  const task = await generate(h, { model: 'local', seed: 5, count: 2 });
  assert.deepEqual(
    task.result.images.map((image: { seed: number }) => image.seed),
    [5, 6],
  );
  assert.deepEqual(
    fake.requests
      .slice(-2)
      .map((request) => request.json.seed)
      .sort(),
    [5, 6],
  );
  await generate(h, { model: 'local', seed: 9, inputs: [await uploaded(h)] });
  const edit = fake.requests.at(-1)!;
  assert.equal(edit.path, '/v1/images/edits');
  assert.equal(edit.fields!.seed, '9', 'a multipart field on edits');
});

test('provider failures map to the SPEC codes, retrying only what is worth retrying', async (t) => {
  const fake = await startFakeOpenAi(t, KEY);
  const h = await startService(t, {
    config: {
      providers: { oa: openai(fake.baseUrl, { timeoutMs: 300 }) },
      models: { gpt: { provider: 'oa', price: { perImage: '0.04', perInput: '0' }, capabilities: caps } },
    },
  });
  const cases: Array<[FakeMode, string, number]> = [
    ['policy', 'RESTRICTED_CONTENT', 1],
    ['bad-prompt', 'INVALID_PROMPT', 1],
    ['rate-limit', 'RATE_LIMITED', 4],
    ['server-error', 'PROVIDER_ERROR', 4],
    ['not-json', 'PROVIDER_ERROR', 4],
    ['slow', 'TIMEOUT', 4],
  ];
  for (const [mode, code, attempts] of cases) {
    await t.test(`${mode} → ${code} after ${attempts} attempt(s)`, async () => {
      fake.mode = mode;
      fake.requests.length = 0;
      const task = await generate(h, { model: 'gpt' });
      assert.equal(task.status, 'completed', 'an image failure is an item failure');
      assert.equal(task.result.images[0].status, 'failed');
      assert.equal(task.result.images[0].error.code, code);
      assert.equal(fake.requests.length, attempts);
      assert.equal(task.cost, '0');
    });
  }
  fake.mode = 'ok';
  const wrongKey = await startService(t, {
    config: {
      providers: { oa: openai(fake.baseUrl, { apiKeyEnv: undefined, apiKey: 'sk-wrong' }) },
      models: { gpt: { provider: 'oa', price: { perImage: '0.04', perInput: '0' }, capabilities: caps } },
    },
  });
  const refused = await generate(wrongKey, { model: 'gpt' });
  assert.equal(refused.result.images[0].error.code, 'PROVIDER_ERROR');
  assert.doesNotMatch(JSON.stringify(refused), /sk-wrong/);
});

test('a model with several providers fails over to the next one', async (t) => {
  const down = await startFakeOpenAi(t, KEY);
  const up = await startFakeOpenAi(t, KEY);
  down.mode = 'server-error';
  const h = await startService(t, {
    config: {
      providers: { a: openai(down.baseUrl), b: openai(up.baseUrl) },
      models: { duo: { providers: ['a', 'b'], price: { perImage: '0.04', perInput: '0' }, capabilities: caps } },
    },
  });
  const task = await generate(h, { model: 'duo' });
  assert.equal(task.result.images[0].status, 'success');
  assert.equal(down.requests.length, 1);
  assert.equal(up.requests.length, 1);
  const stored = await h.server.services.store.tasks.get(task.id);
  assert.equal(stored!.items[0].attempts, 2);
});

test('when every provider of the model is at capacity the image fails PROVIDERS_BUSY', async (t) => {
  const fake = await startFakeOpenAi(t, KEY);
  fake.delayMs = 800;
  const h = await startService(t, {
    config: {
      providers: { oa: openai(fake.baseUrl, { concurrency: 1, timeoutMs: 5000 }) },
      models: { one: { provider: 'oa', price: { perImage: '0.04', perInput: '0' }, capabilities: caps } },
      work: { lanes: { oa: 2 } },
    },
  });
  const task = await generate(h, { model: 'one', count: 2 });
  const codes = task.result.images
    .map((image: { status: string; error?: { code: string } }) => image.error?.code ?? image.status)
    .sort();
  assert.deepEqual(codes, ['PROVIDERS_BUSY', 'success']);
  assert.equal(task.cost, '0.04');
});

test('AUTOMATIC1111: txt2img, and img2img with the first input; a CUDA out-of-memory is PROVIDER_ERROR', async (t) => {
  const fake = await startFakeA1111(t);
  const h = await startService(t, {
    config: {
      providers: {
        sd: {
          type: 'automatic1111',
          baseUrl: fake.baseUrl,
          model: 'sdxl.safetensors',
          steps: 20,
          sampler: 'Euler a',
          timeoutMs: 2000,
        },
      },
      models: {
        sdxl: {
          provider: 'sd',
          price: { perImage: '0.002', perInput: '0.001' },
          capabilities: { maxInputs: 1, supports4k: false, negativePrompt: true },
        },
      },
    },
  });
  const txt = await generate(h, { model: 'sdxl', negative_prompt: 'blur', size: '16:9' });
  assert.equal(txt.result.images[0].status, 'success');
  const [request] = fake.requests;
  assert.equal(request.path, '/sdapi/v1/txt2img');
  assert.equal(request.json.prompt, 'a red kite');
  assert.equal(request.json.negative_prompt, 'blur');
  assert.deepEqual([request.json.width, request.json.height], [1360, 768]);
  assert.equal(request.json.steps, 20);
  assert.equal(request.json.sampler_name, 'Euler a');
  assert.deepEqual(request.json.override_settings, { sd_model_checkpoint: 'sdxl.safetensors' });

  const id = await uploaded(h);
  await generate(h, { model: 'sdxl', inputs: [id] });
  const img2img = fake.requests.at(-1)!;
  assert.equal(img2img.path, '/sdapi/v1/img2img');
  assert.equal(img2img.json.init_images.length, 1);
  assert.equal(img2img.json.denoising_strength, 0.6);

  fake.fail = true;
  const failed = await generate(h, { model: 'sdxl' });
  assert.equal(failed.result.images[0].error.code, 'PROVIDER_ERROR');
});

test('a vision provider rates custom scales, writes alt text and serves nsfw_sfw when asked; a chat provider writes magic prompts', async (t) => {
  const fake = await startFakeOpenAi(t, KEY);
  const vision = openai(fake.baseUrl, { model: 'gpt-4o-mini', nsfw: true });
  const h = await startService(t, {
    providers: {},
    config: { providers: { vision, chat: openai(fake.baseUrl, { model: 'gpt-4o-mini' }) } },
  });
  const id = await uploaded(h);
  const levels = [
    { value: 'bright', description: 'a light image' },
    { value: 'dark', description: 'a dark image' },
  ];
  const rate = async (mode: FakeMode) => {
    fake.mode = mode;
    const res = await h.request('POST', '/image/rate', {
      auth: h.apiKey,
      body: { mode: 'custom', levels, urls: [id], sync: false },
    });
    return (await waitForTask(h, res.json.data.task.id)).result.results[0];
  };
  assert.equal((await rate('ok')).level, 'bright');
  const ask = fake.requests.at(-1)!.json;
  assert.equal(ask.model, 'gpt-4o-mini');
  assert.match(ask.messages[1].content[0].text, /- bright: a light image\n- dark: a dark image/);
  assert.match(ask.messages[1].content[1].image_url.url, /^data:image\/png;base64,/, 'images go as data URLs');
  assert.equal((await rate('json-level')).level, 'dark', 'JSON {"level"} in any case is accepted');
  const garbage = await rate('garbage-level');
  assert.deepEqual([garbage.status, garbage.url, garbage.error.code], ['failed', id, 'RATING_FAILED']);
  assert.match(garbage.error.message, /not a level/, 'the result says why');
  assert.equal((await rate('refusal')).error.code, 'RATING_FAILED');

  fake.mode = 'ok';
  fake.chatReply = 'sfw';
  assert.equal(
    (await h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls: [id] } })).json.data
      .results[0].level,
    'sfw',
  );

  fake.chatReply = `  "${'A blue square on a plain background. '.repeat(8)}"  `;
  const alt = (await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [id] } })).json.data.results[0]
    .alt;
  assert.ok(alt.length <= 160 && alt.startsWith('A blue square'), alt);

  fake.chatReply = '{"positive": "a red kite over green hills, golden hour", "negative": "blurry"}';
  const task = await generate(h, { magic_prompt: true });
  assert.deepEqual(task.result.magic_prompt, {
    positive: 'a red kite over green hills, golden hour',
    negative: 'blurry',
  });
});
