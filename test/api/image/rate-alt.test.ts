import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { accountOf, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';

const LOCAL = { fetch: { allowPrivateAddresses: true } };
const SCALE = [
  { value: 'bright', description: 'a bright image' },
  { value: 'dark', description: 'a dark image' },
];

async function images(t: Parameters<typeof serveFiles>[0]) {
  return serveFiles(t, {
    '/light.png': await makeImage({ rgb: [230, 230, 230] }),
    '/dark.jpg': await makeImage({ rgb: [20, 20, 20], format: 'jpeg' }),
    '/red.webp': await makeImage({ rgb: [240, 20, 20], format: 'webp' }),
    '/wide.png': await makeImage({ width: 300, height: 60 }),
    '/text.png': 'not an image',
  });
}

test('sync rating answers 200 with one result per URL in order, charged per successful URL', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const urls = [url('/light.png'), url('/missing.png'), url('/dark.jpg'), 'http://10.0.0.1/private.png'];
  const res = await h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls } });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.json.data), ['task', 'results']);
  assert.deepEqual(Object.keys(res.json.data.task), ['id', 'status', 'cost']);
  assert.equal(res.json.data.task.status, 'completed');
  assert.equal(res.json.data.task.cost, '0.0004');
  const [light, missing, dark, privateUrl] = res.json.data.results;
  assert.deepEqual(
    [light, dark],
    [
      { status: 'success', url: urls[0], level: 'sfw' },
      { status: 'success', url: urls[2], level: 'nsfw' },
    ],
  );
  assert.deepEqual(missing, {
    status: 'failed',
    url: urls[1],
    error: { code: 'FETCH_FAILED', message: `cannot fetch the image: ${new URL(urls[1]).host} answered HTTP 404` },
  });
  assert.equal(privateUrl.status, 'failed');
  assert.equal(privateUrl.error.code, 'FETCH_FAILED');
  assert.match(privateUrl.error.message, /^cannot fetch the image: /, 'each failed item says why');
  const task = (await h.request('GET', `/tasks/${res.json.data.task.id}`, { auth: h.apiKey })).json.data;
  assert.deepEqual(task.request, { mode: 'nsfw_sfw', urls }, 'the task keeps mode and urls only');
  assert.deepEqual(task.result.results, res.json.data.results, 'the same values as the task endpoints');
  assert.equal((await accountOf(h)).balance, '99.9996');
});

test('custom scales are rated by the vision provider; an answer that is no level is RATING_FAILED', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await h.request('POST', '/image/rate', {
    auth: h.token,
    body: { mode: 'custom', levels: SCALE, urls: [url('/dark.jpg'), url('/red.webp'), url('/light.png')] },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.json.data.results.map((r: { level?: string; error?: { code: string } }) => r.level ?? r.error!.code),
    ['dark', 'RATING_FAILED', 'bright'],
  );
  const task = (await h.request('GET', `/tasks/${res.json.data.task.id}`, { auth: h.apiKey })).json.data;
  assert.deepEqual(task.request.levels, SCALE);
  assert.equal(task.apiKeyId, null, 'created with an access token');
});

test('sync false answers 202 with the task to poll; a sync call past the timeout answers 202 too', async (t) => {
  const h = await startService(t, {
    config: { ...LOCAL, sync: { timeoutMs: 50 } },
    providers: fakeProviders({ delayMs: 400 }),
  });
  const url = await images(t);
  const queued = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [url('/light.png')], sync: false },
  });
  assert.equal(queued.status, 202);
  assert.deepEqual(queued.json.data, { task: { id: queued.json.data.task.id, status: 'pending' } });
  const slow = await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [url('/light.png')] } });
  assert.equal(slow.status, 202);
  assert.equal(slow.json.data.task.status, 'pending');
  const done = await waitForTask(h, slow.json.data.task.id);
  assert.equal(done.result.results[0].status, 'success');
});

test('a sync task whose every URL fails answers 500 UNKNOWN_ERROR naming each reason, and is free', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [url('/text.png'), url('/missing.png')] },
  });
  assert.equal(res.status, 500);
  assert.equal(res.json.code, 'UNKNOWN_ERROR');
  const [task] = (await h.request('GET', '/tasks', { auth: h.apiKey })).json.data;
  const host = new URL(url('/missing.png')).host;
  assert.match(
    res.json.message,
    new RegExp(
      `^task ${task.id} failed: item 1 FETCH_FAILED \\(.+\\); item 2 FETCH_FAILED \\(cannot fetch the image: ${host} answered HTTP 404\\)$`,
    ),
  );
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'FETCH_FAILED');
  assert.equal(task.cost, '0');
  assert.equal((await accountOf(h)).balance, '100');
});

test('alt text answers per URL, 1 to 160 characters, charged 0.0004 per success', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await h.request('POST', '/image/alt', {
    auth: h.apiKey,
    body: { urls: [url('/light.png'), url('/wide.png'), url('/text.png')] },
  });
  assert.equal(res.status, 200);
  const [light, wide, text] = res.json.data.results;
  assert.deepEqual(light, { status: 'success', url: url('/light.png'), alt: 'A 64 by 64 png image.' });
  assert.equal(wide.status, 'success');
  assert.ok(wide.alt.length <= 160 && wide.alt.length > 80, `trimmed on a word: ${wide.alt.length}`);
  assert.doesNotMatch(wide.alt, /\s$/);
  assert.equal(text.status, 'failed');
  assert.equal(text.error.code, 'FETCH_FAILED');
  assert.equal(text.error.message, 'not a PNG, JPEG, WEBP or GIF image', 'a body that is no image says so');
  assert.equal(res.json.data.task.cost, '0.0008');
});

test('a provider failure on alt text reports ALT_GENERATION_FAILED', async (t) => {
  const providers = { ...fakeProviders(), altText: { describe: async () => '   ' } };
  const h = await startService(t, { config: LOCAL, providers });
  const url = await images(t);
  const res = await h.request('POST', '/image/alt', {
    auth: h.apiKey,
    body: { urls: [url('/light.png')], sync: false },
  });
  const task = await waitForTask(h, res.json.data.task.id);
  assert.equal(task.status, 'failed');
  assert.deepEqual(task.result.results[0].error, {
    code: 'ALT_GENERATION_FAILED',
    message: 'the provider gave no alt text',
  });
});

test('rate and alt validate their bodies and need their providers', async (t) => {
  const h = await startService(t, {
    providers: {},
    config: { embedded: { nsfw: { enabled: false, timeoutMs: 1000 }, altText: { enabled: false, ocr: false } } },
  });
  const level = (value: string, description = 'd') => ({ value, description });
  const cases: Array<[string, string, unknown, (string | number)[]]> = [
    ['rate', 'no urls', { mode: 'nsfw_sfw', urls: [] }, ['urls']],
    ['rate', 'eleven urls', { mode: 'nsfw_sfw', urls: Array(11).fill('https://e.com/a.png') }, ['urls']],
    ['rate', 'an unknown mode', { mode: 'stars', urls: ['https://e.com/a.png'] }, ['mode']],
    ['rate', 'custom without levels', { mode: 'custom', urls: ['https://e.com/a.png'] }, ['levels']],
    [
      'rate',
      'a description over 150 characters',
      { mode: 'custom', urls: ['https://e.com/a.png'], levels: [level('a', 'x'.repeat(151)), level('b')] },
      ['levels', 0, 'description'],
    ],
    ['alt', 'no urls', { urls: [] }, ['urls']],
    ['alt', 'sync not a boolean', { urls: ['https://e.com/a.png'], sync: 'yes' }, ['sync']],
  ];
  for (const [route, name, body, path] of cases) {
    const res = await h.request('POST', `/image/${route}`, { auth: h.apiKey, body });
    assert.equal(res.status, 400, `${route}: ${name}`);
    assert.equal(res.json.success, false);
    assert.deepEqual(res.json.error[0].path, path, `${route}: ${name}`);
  }
  const custom = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'custom', urls: ['https://e.com/a.png'], levels: [level('a'), level('b')] },
  });
  assert.equal(custom.status, 400);
  assert.equal(custom.json.code, 'VALIDATION_ERROR');
  assert.match(
    custom.json.message,
    /^custom rating needs a vision provider \(providers\.vision\), which this service has not configured; docs\/providers\.md#remote shows an OpenAI or a local Ollama setup$/,
  );
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, [], 'nothing charged or created');
});

test('rate and alt accept API keys and access tokens with their scopes, never PATs', async (t) => {
  const h = await startService(t);
  const { access } = (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p' } })).json.data;
  const body = { urls: ['http://10.0.0.1/a.png'], sync: false };
  assert.equal((await h.request('POST', '/image/alt', { auth: h.token, body })).status, 202);
  assert.equal(
    (await h.request('POST', '/image/alt', { auth: access.publicAccessToken, body })).json.code,
    'UNAUTHORIZED',
  );
  const narrow = await h.server.services.tokens.issueAccessToken(h.accountId, ['image:rate'], 60_000);
  const res = await h.request('POST', '/image/alt', { auth: narrow.accessToken, body });
  assert.equal(res.status, 403);
  assert.deepEqual(res.json.scopes, { required: ['image:alt'], current: ['image:rate'] });
});
