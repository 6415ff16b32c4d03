import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';

const NO_4K = {
  models: {
    small: {
      provider: 'placeholder',
      price: { perImage: '0.01', perInput: '0.002' },
      capabilities: { maxInputs: 1, supports4k: false, negativePrompt: false },
    },
  },
};
const level = (value: string) => ({ value, description: `level ${value}` });

test('schema rejections on /image/generate echo the body with every issue', async (t) => {
  const h = await startService(t);
  const cases: Array<[string, Record<string, unknown>, (string | number)[]]> = [
    ['a missing prompt', {}, ['prompt']],
    ['an empty prompt', { prompt: '' }, ['prompt']],
    ['a prompt over 8192 characters', { prompt: 'x'.repeat(8193) }, ['prompt']],
    ['an empty negative prompt', { prompt: 'p', negative_prompt: '' }, ['negative_prompt']],
    ['magic_prompt false', { prompt: 'p', magic_prompt: false }, ['magic_prompt']],
    ['an unknown model id', { prompt: 'p', model: 'dall-e-9' }, ['model']],
    ['count 0', { prompt: 'p', count: 0 }, ['count']],
    ['count 21', { prompt: 'p', count: 21 }, ['count']],
    ['a fractional count', { prompt: 'p', count: 1.5 }, ['count']],
    ['a negative seed', { prompt: 'p', seed: -1 }, ['seed']],
    ['a seed of 2^32', { prompt: 'p', seed: 4294967296 }, ['seed']],
    ['a fractional seed', { prompt: 'p', seed: 4.2 }, ['seed']],
    ['a seed as text', { prompt: 'p', seed: '42' }, ['seed']],
    ['an unknown size preset', { prompt: 'p', size: '7:3' }, ['size']],
    [
      'an aspect ratio object with an unknown scale',
      { prompt: 'p', size: { type: 'aspect_ratio', aspectRatio: '1:1', scale: '8k' } },
      ['size'],
    ],
    ['21 inputs', { prompt: 'p', inputs: Array(21).fill('https://example.com/a.png') }, ['inputs']],
    [
      'an input URL over 2048 characters',
      { prompt: 'p', inputs: [`https://example.com/${'a'.repeat(2040)}`] },
      ['inputs', 0],
    ],
    [
      'an input object of another type',
      { prompt: 'p', inputs: [{ type: 'video', source: { type: 'url', url: 'https://e.com/v' } }] },
      ['inputs', 0, 'type'],
    ],
    ['an input that is neither a string nor an object', { prompt: 'p', inputs: [42] }, ['inputs', 0]],
    ['an unknown output format', { prompt: 'p', output: { format: 'gif' } }, ['output', 'format']],
    ['quality 0', { prompt: 'p', output: { quality: 0 } }, ['output', 'quality']],
    ['quality 101', { prompt: 'p', output: { quality: 101 } }, ['output', 'quality']],
    [
      'six custom webhooks',
      { prompt: 'p', webhook: { custom: Array(6).fill({ url: 'https://hooks.example/x' }) } },
      ['webhook', 'custom'],
    ],
    [
      'a custom webhook that is not http(s)',
      { prompt: 'p', webhook: { custom: [{ url: 'ftp://x' }] } },
      ['webhook', 'custom', 0, 'url'],
    ],
    ['rating false', { prompt: 'p', rating: false }, ['rating']],
    ['one custom level', { prompt: 'p', rating: { mode: 'custom', levels: [level('a')] } }, ['rating', 'levels']],
    [
      'eight custom levels',
      { prompt: 'p', rating: { mode: 'custom', levels: 'abcdefgh'.split('').map(level) } },
      ['rating', 'levels'],
    ],
    [
      'a level value over 24 characters',
      { prompt: 'p', rating: { mode: 'custom', levels: [level('a'.repeat(25)), level('b')] } },
      ['rating', 'levels', 0, 'value'],
    ],
    ['a destination name over 64 characters', { prompt: 'p', destination: 'd'.repeat(65) }, ['destination']],
    ['metadata that is not an object', { prompt: 'p', metadata: 'x' }, ['metadata']],
    [
      'access.pat.enabled not a boolean',
      { prompt: 'p', access: { pat: { enabled: 'yes' } } },
      ['access', 'pat', 'enabled'],
    ],
  ];
  for (const [name, body, path] of cases) {
    await t.test(`rejects ${name}`, async () => {
      const res = await h.request('POST', '/image/generate', { auth: h.apiKey, body });
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.json), ['data', 'error', 'success']);
      assert.deepEqual(res.json.data, body, 'the body is echoed');
      assert.equal(res.json.success, false);
      assert.deepEqual(res.json.error[0].path, path);
      for (const key of ['path', 'code', 'expected', 'actual', 'message']) assert.ok(key in res.json.error[0], key);
    });
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, [], 'nothing was created');
});

test('checks after the schema answer 400 VALIDATION_ERROR and create nothing', async (t) => {
  const noRaters = { embedded: { nsfw: { enabled: false, timeoutMs: 1000 }, altText: { enabled: false, ocr: false } } };
  const h = await startService(t, { config: { ...NO_4K, ...noRaters }, providers: {} });
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['metadata over 2048 bytes', { prompt: 'p', metadata: { blob: 'é'.repeat(1100) } }, /metadata is \d+ bytes/],
    ['an unknown destination', { prompt: 'p', destination: 'nowhere' }, /no destination named "nowhere"/],
    [
      'more inputs than the model takes',
      { prompt: 'p', model: 'small', inputs: ['https://a.example/1.png', 'https://a.example/2.png'] },
      /at most 1 input/,
    ],
    [
      'a negative prompt the model cannot take',
      { prompt: 'p', model: 'small', negative_prompt: 'no' },
      /does not take a negative_prompt/,
    ],
    [
      'custom rating without a vision provider',
      { prompt: 'p', rating: { mode: 'custom', levels: [level('a'), level('b')] } },
      /providers\.vision.*docs\/providers\.md#remote/,
    ],
    ['nsfw rating without a rater', { prompt: 'p', rating: true }, /nsfw_sfw rating/],
  ];
  for (const [name, body, message] of cases) {
    const res = await h.request('POST', '/image/generate', { auth: h.apiKey, body });
    assert.equal(res.status, 400, name);
    assert.equal(res.json.code, 'VALIDATION_ERROR', name);
    assert.match(res.json.message, message, name);
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, []);
  assert.equal((await accountOf(h)).reserved, '0');
});

test('a _4k size on a model without 4K fails the task with CAPABILITY_NOT_SUPPORTED and releases the reserve', async (t) => {
  const h = await startService(t, { config: NO_4K });
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'p', model: 'small', size: '1:1_4k', count: 3 },
  });
  assert.equal(res.status, 201);
  const task = await waitForTask(h, res.json.data.taskId);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'CAPABILITY_NOT_SUPPORTED');
  assert.equal(task.result, null);
  assert.equal(task.cost, '0');
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
});

test('an input that cannot be fetched or read fails the task with INVALID_INPUT', async (t) => {
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true } } });
  const url = await serveFiles(t, {
    '/text.png': 'this is not an image at all, whatever its name says'.repeat(40),
    '/ok.png': await makeImage(),
  });
  for (const input of [url('/missing.png'), url('/text.png')]) {
    const task = await waitForTask(
      h,
      (
        await h.request('POST', '/image/generate', {
          auth: h.apiKey,
          body: { prompt: 'p', inputs: [url('/ok.png'), input] },
        })
      ).json.data.taskId,
    );
    assert.equal(task.status, 'failed', input);
    assert.equal(task.errors[0].code, 'INVALID_INPUT');
  }
});

test('by default an input on a private address is refused by the SSRF guard (INVALID_INPUT)', async (t) => {
  const h = await startService(t);
  const url = await serveFiles(t, { '/ok.png': await makeImage() });
  const task = await waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p', inputs: [url('/ok.png')] } }))
      .json.data.taskId,
  );
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'INVALID_INPUT');
  assert.match(task.errors[0].message, /may not reach/);
});

test('generate takes only API keys: access tokens and PATs are refused', async (t) => {
  const h = await startService(t);
  const { access } = (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p' } })).json.data;
  for (const auth of [h.token, access.publicAccessToken]) {
    const res = await h.request('POST', '/image/generate', { auth, body: { prompt: 'p' } });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, 'UNAUTHORIZED');
  }
});
