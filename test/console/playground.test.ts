import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { accountOf, type Harness, startService, waitForTask } from '../helpers/harness.js';

const FORM_TYPES = [
  'image.generate',
  'image.rate',
  'image.alt',
  'image.remove_background',
  'image.review',
  'video.generate',
];

/** A key of the harness account, made through the service as the Keys page would. */
async function addKey(h: Harness, name: string, scopes?: string[]) {
  const { apiKey } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name,
    ...(scopes ? { scopes } : {}),
  });
  return apiKey;
}

const taskCount = async (h: Harness) => (await h.request('GET', '/tasks', { auth: h.apiKey })).json.data.length;

/** Posts JSON to the estimate endpoint as the page's script does (origin and form token in headers). */
async function estimate(
  h: Harness,
  c: ConsoleClient,
  type: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${h.url}/console/playground/${type}/estimate`, {
    method: 'POST',
    headers: {
      cookie: `imgtask_console=${c.cookie}`,
      origin: new URL(h.url).origin,
      'content-type': 'application/json',
      'x-csrf-token': c.csrf,
      ...headers,
    },
    body: JSON.stringify(fields),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
}

test('the playground offers a form for each task type, each listing the account’s keys; an unknown type is not found', async (t) => {
  const h = await startService(t);
  const second = await addKey(h, 'second key');
  const c = await consoleSignIn(h);
  const page = await c.get('/console/playground');
  assert.equal(page.status, 200);
  for (const type of FORM_TYPES)
    assert.ok(page.text.includes(`href="/console/playground?type=${type}"`), `a link to the ${type} form`);
  assert.match(page.text, /action="\/console\/playground\/image.generate"/, 'the generate form opens first');
  assert.match(page.text, /aria-live="polite"/, 'a live region for the estimate');
  for (const type of FORM_TYPES) {
    const form = await c.get(`/console/playground?type=${type}`);
    assert.equal(form.status, 200);
    assert.ok(form.text.includes(`action="/console/playground/${type}"`), `the ${type} form posts to its own path`);
    assert.ok(
      form.text.includes(`<option value="${h.keyId}"`) && form.text.includes(`<option value="${second.id}"`),
      `the ${type} form lists both keys`,
    );
    assert.ok(form.text.includes(`second key (${second.keyPreview})`), 'a key shows its name and preview');
  }
  // What a type cannot do without is marked required: the page's script asks for no estimate until it is filled.
  for (const [type, id] of [
    ['image.generate', 'image-generate-prompt'],
    ['image.rate', 'image-rate-urls'],
    ['image.alt', 'image-alt-urls'],
    ['image.remove_background', 'image-remove-background-url'],
    ['image.review', 'image-review-url'],
    ['video.generate', 'video-generate-prompt'],
  ]) {
    const form = await c.get(`/console/playground?type=${type}`);
    assert.match(form.text, new RegExp(`<(textarea|input) [^>]*required=""[^>]*id="${id}"`), `${id} is required`);
  }
  const s3 = {
    bucket: 'images',
    region: 'eu-west-1',
    endpoint: 'https://s3.example',
    accessKeyId: 'AKIAEXAMPLE',
    secretAccessKey: 'very-secret-value-1234',
  };
  assert.equal(
    (
      await h.request('POST', '/destinations', {
        auth: h.token,
        body: { name: 'archive', provider: { id: 's3' }, config: s3 },
      })
    ).status,
    201,
  );
  const generate = await c.get('/console/playground?type=image.generate');
  assert.match(generate.text, /<option value="archive">archive<\/option>/, 'the account’s destinations are offered');
  assert.match(generate.text, /<option value="placeholder">placeholder<\/option>/, 'the configured models are offered');
  assert.match(generate.text, /<option value="16:9">/, 'the size presets are offered');
  assert.equal((await c.get('/console/playground?type=image.nothing')).status, 404);
  assert.equal((await c.post('/console/playground/image.nothing', { prompt: 'x' })).status, 404);
});

test('an account without a live key is told to create one first', async (t) => {
  const h = await startService(t);
  await h.server.services.accounts.create('newcomer', 0);
  const c = await consoleSignIn(h, { account: 'newcomer' });
  const page = await c.get('/console/playground');
  assert.equal(page.status, 200);
  assert.match(page.text, /No API key yet/);
  assert.match(page.text, /href="\/console\/keys"/);
  assert.equal(page.text.includes('action="/console/playground/'), false, 'no form without a key');
});

test('a generate post creates the task as the chosen key and redirects to its inspector; the advanced JSON body is merged over the fields', async (t) => {
  const h = await startService(t);
  const chosen = await addKey(h, 'playground');
  const c = await consoleSignIn(h);
  const res = await c.post('/console/playground/image.generate', {
    key: chosen.id,
    prompt: 'a lighthouse at dusk',
    model: 'auto',
    size: 'square',
    count: '1',
    output_format: 'png',
    output_quality: '',
    seed: '7',
    metadata: '{"order": 42}',
    advanced: '{"count": 2, "metadata": {"source": "playground"}}',
  });
  assert.equal(res.status, 303, res.text);
  const taskId = /^\/console\/tasks\/(tsk_[0-9A-Za-z]+)$/.exec(res.location ?? '')?.[1];
  assert.ok(taskId, `redirected to the task inspector (got ${res.location})`);
  const task = (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data;
  assert.equal(task.apiKeyId, chosen.id, 'the task runs as the chosen key');
  assert.equal(task.type, 'image.generate');
  assert.equal(task.request.prompt, 'a lighthouse at dusk');
  assert.equal(task.request.count, 2, 'the advanced JSON wins over the count field');
  assert.equal(task.request.seed, 7);
  assert.equal(task.request.output.format, 'png');
  assert.deepEqual(
    task.metadata ?? task.request.metadata,
    { order: 42, source: 'playground' },
    'objects are merged key by key',
  );
  const done = await waitForTask(h, taskId);
  assert.equal(done.status, 'completed');
});

test('every other form creates a task of its type from its own fields, without waiting for it', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const image = 'https://example.com/a.png';
  const forms: [type: string, fields: Record<string, string>, expect: (request: any) => void][] = [
    [
      'image.rate',
      { mode: 'nsfw_sfw', urls: `${image}\n\n https://example.com/b.png \n` },
      (r) => assert.deepEqual(r.urls, [image, 'https://example.com/b.png']),
    ],
    [
      'image.rate',
      { mode: 'custom', urls: image, levels: 'safe: no people\nbusy: a crowd' },
      (r) =>
        assert.deepEqual(r.levels, [
          { value: 'safe', description: 'no people' },
          { value: 'busy', description: 'a crowd' },
        ]),
    ],
    ['image.alt', { urls: image }, (r) => assert.deepEqual(r.urls, [image])],
    [
      'image.remove_background',
      { url: image, output_format: 'png', destination: '' },
      (r) => assert.deepEqual([r.url, r.output], [image, { format: 'png' }]),
    ],
    [
      'image.review',
      { url: image, prompt: '', criteria: 'no text\nsharp focus' },
      (r) => assert.deepEqual([r.url, r.criteria, r.prompt], [image, ['no text', 'sharp focus'], undefined]),
    ],
    [
      'video.generate',
      {
        prompt: 'a fox in snow',
        model: 'auto',
        size: 'auto',
        count: '1',
        duration_s: '2',
        fps: '',
        format: 'webp',
        first_frame: image,
      },
      (r) => assert.deepEqual([r.prompt, r.duration_s, r.format, r.inputs], ['a fox in snow', 2, 'webp', [image]]),
    ],
  ];
  for (const [type, fields, expect] of forms) {
    const res = await c.post(`/console/playground/${type}`, { key: h.keyId, ...fields });
    assert.equal(
      res.status,
      303,
      `${type}: ${res.text.slice(res.text.indexOf('role="alert"'), res.text.indexOf('role="alert"') + 300)}`,
    );
    const task = (await h.request('GET', `/tasks/${res.location!.split('/').pop()}`, { auth: h.apiKey })).json.data;
    assert.equal(task.type, type);
    assert.equal(task.apiKeyId, h.keyId);
    expect(task.request);
  }
});

test('a form the schema refuses is shown again with each issue, keeping what was typed, and creates nothing', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const res = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: '',
    negative_prompt: 'blurry',
    count: '0',
    metadata: '{"order": 42',
    model: 'auto',
  });
  assert.equal(res.status, 400);
  assert.match(res.text, /VALIDATION_ERROR/);
  assert.match(res.text, /<code>metadata<\/code>: not valid JSON/, 'a JSON field that does not parse is named');
  assert.match(res.text, />blurry<\/textarea>/, 'the typed values are kept');

  const proto = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: 'a lighthouse',
    metadata: '{"order": 1}',
    advanced: '{"metadata": {"__proto__": {"admin": true}}}',
  });
  assert.equal(proto.status, 400, 'a "__proto__" key reaches the schema, which refuses it, rather than vanishing');
  assert.match(proto.text, /<code>metadata.__proto__<\/code>: &quot;__proto__&quot; is not allowed/);

  const schema = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: '',
    negative_prompt: 'blurry',
    count: '0',
    model: 'auto',
  });
  assert.equal(schema.status, 400);
  assert.match(schema.text, /<code>prompt<\/code>: Too small/);
  assert.match(schema.text, /<code>count<\/code>: Too small/);
  assert.match(
    schema.text,
    /id="image-generate-count"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="image-generate-count"/,
    'the field is marked invalid',
  );
  assert.match(schema.text, /value="0"/);
  assert.equal(await taskCount(h), 0);
});

test('a key of another account is not found, and a key without the type’s scope is refused with INSUFFICIENT_SCOPE', async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other', 10_000_000);
  const { apiKey: foreign } = await h.server.services.apiKeys.create({ accountId: other.id, name: 'foreign' });
  const narrow = await addKey(h, 'rate only', ['image:rate']);
  const c = await consoleSignIn(h);
  const fields = { prompt: 'a lighthouse', model: 'auto', count: '1' };

  const foreignPost = await c.post('/console/playground/image.generate', { ...fields, key: foreign.id });
  assert.equal(foreignPost.status, 404);
  assert.match(foreignPost.text, /API_KEY_NOT_FOUND/);
  assert.equal(foreignPost.text.includes('foreign'), false, 'nothing of the other account’s key is shown');

  const page = await c.get('/console/playground?type=image.generate');
  assert.match(
    page.text,
    /rate only \([^)]+\) \(lacks image:generate\)/,
    'the key list says which key lacks the scope',
  );
  const scoped = await c.post('/console/playground/image.generate', { ...fields, key: narrow.id });
  assert.equal(scoped.status, 403);
  assert.match(scoped.text, /INSUFFICIENT_SCOPE/);
  assert.match(scoped.text, /image:generate/);
  assert.match(scoped.text, />a lighthouse<\/textarea>/, 'the prompt is kept');
  assert.equal(await taskCount(h), 0);
});

test('the estimate endpoint answers the cost the API’s estimate route answers for the same body, and the form’s refusals', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  await c.get('/console/playground');

  const generate = await estimate(h, c, 'image.generate', {
    key: h.keyId,
    prompt: 'a lighthouse',
    model: 'auto',
    size: 'square',
    count: '3',
    output_format: 'png',
    metadata: '',
  });
  assert.equal(generate.status, 200, generate.text);
  const api = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: {
      type: 'image.generate',
      request: { prompt: 'a lighthouse', model: 'auto', size: 'square', count: 3, output: { format: 'png' } },
    },
  });
  assert.deepEqual(generate.json, { cost: api.json.data.estimatedCost });
  assert.notEqual(generate.json.cost, '0');

  const urls = 'https://example.com/a.png\nhttps://example.com/b.png';
  const rate = await estimate(h, c, 'image.rate', { key: h.keyId, mode: 'nsfw_sfw', urls });
  const apiRate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.rate', request: { mode: 'nsfw_sfw', urls: urls.split('\n') } },
  });
  assert.deepEqual(rate.json, { cost: apiRate.json.data.estimatedCost });

  const invalid = await estimate(h, c, 'image.generate', { key: h.keyId, prompt: '', count: '0' });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.json.error.code, 'VALIDATION_ERROR');
  assert.match(invalid.json.error.message, /count: Too small/);

  const narrow = await addKey(h, 'alt only', ['image:alt']);
  const scoped = await estimate(h, c, 'image.generate', { key: narrow.id, prompt: 'a lighthouse' });
  assert.equal(scoped.json.error.code, 'INSUFFICIENT_SCOPE');

  const unsigned = await estimate(
    h,
    c,
    'image.generate',
    { key: h.keyId, prompt: 'a lighthouse' },
    { 'x-csrf-token': 'not-the-token' },
  );
  assert.equal(unsigned.status, 401, 'an estimate without the form token is refused');
  assert.equal(await taskCount(h), 0, 'an estimate creates nothing');
  assert.equal((await accountOf(h)).reserved, '0');
});

test('a task the balance cannot cover shows INSUFFICIENT_BALANCE on the form', async (t) => {
  const h = await startService(t, { credit: 0 });
  const c = await consoleSignIn(h);
  const res = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: 'a lighthouse',
    model: 'auto',
    count: '1',
  });
  assert.equal(res.status, 422);
  assert.match(res.text, /<strong>INSUFFICIENT_BALANCE<\/strong>/);
  assert.match(res.text, /role="alert"/);
  assert.match(res.text, />a lighthouse<\/textarea>/);
  assert.equal(await taskCount(h), 0);
});

test('a cross-site post is refused and creates nothing', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  await c.get('/console/playground');
  const fields = { key: h.keyId, prompt: 'a lighthouse', model: 'auto', count: '1' };
  const otherOrigin = await c.post('/console/playground/image.generate', fields, { origin: 'https://evil.example' });
  assert.equal(otherOrigin.status, 401);
  const form = new URLSearchParams({ ...fields, _csrf: c.csrf });
  const noOrigin = await fetch(`${h.url}/console/playground/image.generate`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  assert.equal(noOrigin.status, 401);
  const noToken = await c.post('/console/playground/image.generate', { ...fields, _csrf: '' });
  assert.equal(noToken.status, 401);
  assert.equal(await taskCount(h), 0);
});

test('markup typed in a prompt, metadata or the JSON body comes back as text on a re-rendered form', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const payload = '<script>alert(1)</script><img src=x onerror=alert(2)>';
  const res = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: payload,
    count: '0',
    metadata: `{"note": "${payload.replaceAll('"', '\\"')}"`,
    advanced: `{"negative_prompt": "</textarea>${payload}"}`,
  });
  assert.equal(res.status, 400);
  assert.equal(res.text.includes('<script>alert(1)'), false, 'no script element from the payload');
  assert.equal(res.text.includes('<img src=x'), false, 'no image element from the payload');
  assert.equal(res.text.includes('</textarea><script'), false, 'the payload cannot close the textarea');
  assert.ok(res.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the prompt is echoed as text');
  assert.ok(res.text.includes('&lt;/textarea&gt;'), 'the JSON body is echoed as text');
});
