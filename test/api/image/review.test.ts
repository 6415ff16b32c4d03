import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeOpenAi } from '../../fixtures/fake-openai.js';
import { blurred, darkened, scene, sign } from '../../fixtures/review-images.js';
import { accountOf, eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { serveFiles } from '../../helpers/images.js';
import { startReceiver } from '../../helpers/receiver.js';

const LOCAL = { fetch: { allowPrivateAddresses: true } };
type Finding = { criterion: string; passed: boolean; note: string };
const criteriaOf = (findings: Finding[]) => findings.map((f) => `${f.passed ? '✓' : '✗'} ${f.criterion}`);

async function images(t: Parameters<typeof serveFiles>[0]) {
  return serveFiles(t, {
    '/scene.png': await scene(),
    '/blurred.png': await blurred(),
    '/dark.png': await darkened(),
    '/small.png': await scene(256),
    '/sign.png': await sign(),
  });
}

const review = (h: Harness, body: Record<string, unknown>, auth = h.apiKey) =>
  h.request('POST', '/image/review', { auth, body });

/** A vision provider on the fake OpenAI server. */
async function withVision(
  t: Parameters<typeof startFakeOpenAi>[0],
  vision: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
) {
  const fake = await startFakeOpenAi(t);
  const h = await startService(t, {
    config: {
      ...LOCAL,
      ...config,
      providers: { vision: { type: 'openai', baseUrl: fake.baseUrl, model: 'vision-test', ...vision } },
    },
  });
  return { fake, h, chats: () => fake.requests.filter((r) => r.path === '/v1/chat/completions') };
}

test('a clean photo passes every embedded check, charged review.price once, with a PAT', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await review(h, { url: url('/scene.png'), metadata: { ref: 'a' } });
  assert.equal(res.status, 200, res.text);
  const { task, result, access } = res.json.data;
  assert.deepEqual(Object.keys(task), ['id', 'status', 'cost']);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '0.001');
  assert.match(access.publicAccessToken, /^pat_/);
  assert.equal(result.verdict, 'pass');
  assert.equal(result.score, 1);
  assert.deepEqual(criteriaOf(result.findings), ['✓ resolution', '✓ sharp focus', '✓ exposure', '✓ safe for work']);
  assert.match(result.findings[0].note, /^1024×1024: the shorter side, 1024 px, is at least 512$/);
  assert.match(result.findings[1].note, /^variance of the Laplacian \d+(\.\d)?, at least 100$/);
  assert.match(result.summary, /^Passed all 4 checks\.$/);
  const stored = (await h.request('GET', `/tasks/${task.id}`, { auth: h.apiKey })).json.data;
  assert.deepEqual(
    stored.request,
    { url: url('/scene.png'), metadata: { ref: 'a' } },
    'the task keeps the body without sync',
  );
  assert.deepEqual(stored.result, result);
  const viaPat = await h.request('GET', `/tasks/${task.id}/result`, { auth: access.publicAccessToken });
  assert.equal(viaPat.json.data.result.verdict, 'pass');
  assert.equal((await accountOf(h)).balance, '99.999');
  const off = await review(h, { url: url('/scene.png'), access: { pat: { enabled: false } } });
  assert.equal(off.json.data.access, undefined, 'access.pat.enabled false: no PAT');
});

test('blurred, dark and small images fail their checks: a fail verdict is a completed task', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const blur = (await review(h, { url: url('/blurred.png') })).json.data;
  assert.equal(blur.task.status, 'completed');
  assert.equal(blur.result.verdict, 'fail');
  assert.deepEqual(criteriaOf(blur.result.findings), [
    '✓ resolution',
    '✗ sharp focus',
    '✓ exposure',
    '✓ safe for work',
  ]);
  assert.match(
    blur.result.findings[1].note,
    /^variance of the Laplacian \d+(\.\d)?, below 100: the image looks blurred$/,
  );
  assert.equal(blur.result.score, 0.75);
  assert.match(blur.result.summary, /^Passed 3 of 4 checks; failed: sharp focus \(variance of the Laplacian/);
  assert.equal(blur.task.cost, '0.001', 'a fail verdict is charged: the review was made');

  const dark = (await review(h, { url: url('/dark.png') })).json.data.result;
  // Darkening also lowers the contrast, and with it the variance of the Laplacian: only exposure and the rater are
  // asserted.
  assert.deepEqual(criteriaOf(dark.findings).slice(2), ['✗ exposure', '✗ safe for work']);
  assert.match(dark.findings[2].note, /mean brightness \d+(\.\d)? is below 40: underexposed/);
  assert.equal(dark.findings[3].note, 'the nsfw rater says nsfw');

  const small = (await review(h, { url: url('/small.png') })).json.data.result;
  assert.deepEqual(criteriaOf(small.findings).slice(0, 2), ['✗ resolution', '✓ sharp focus']);
  assert.equal(small.findings[0].note, '256×256: the shorter side, 256 px, is below 512: too small');
  const sized = (await review(h, { url: url('/scene.png'), criteria: ['At least 1920x1080', 'not blurry'] })).json.data
    .result;
  assert.deepEqual(
    criteriaOf(sized.findings),
    ['✗ At least 1920x1080', '✓ not blurry', '✓ exposure', '✓ safe for work'],
    'asked wording replaces the defaults',
  );
  assert.equal(sized.findings[0].note, '1024×1024, smaller than 1920×1080');
});

test('text checks read the image with the embedded OCR: "no text", and the quoted text of the prompt', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await review(h, {
    url: url('/sign.png'),
    prompt: 'a shop sign saying "Grand opening!" in black',
    criteria: ['No text.', 'text "CLOSED"'],
  });
  assert.equal(res.status, 200, res.text);
  const { findings, summary, verdict } = res.json.data.result;
  const text = findings.slice(-3);
  assert.deepEqual(criteriaOf(text), ['✗ No text.', '✗ text "CLOSED"', '✓ text "Grand opening!"']);
  assert.match(text[0].note, /^legible text read: "GRAND OPENING SALE"$/);
  assert.match(text[1].note, /not read \(read: "GRAND OPENING SALE"\)/);
  assert.equal(verdict, 'fail');
  assert.match(summary, /Prompt adherence was not judged \(no vision provider\)\./);
});

test('a free-text criterion needs a vision provider: 400 naming it, nothing reserved', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const res = await review(h, { url: 'https://e.com/a.png', criteria: ['sharp focus', 'product centred'] });
  assert.equal(res.status, 400);
  assert.equal(res.json.code, 'VALIDATION_ERROR');
  assert.match(res.json.message, /"product centred"/);
  assert.match(res.json.message, /providers\.vision/);
  assert.match(res.json.message, /"no text"/, 'it lists the phrasings understood offline');
  assert.doesNotMatch(res.json.message, /"sharp focus" need/, 'a built-in criterion is not named');
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, []);
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
});

test('with providers.vision the judge answers the prompt and the free-text criteria; built-in checks stay measured', async (t) => {
  const { fake, h, chats } = await withVision(t);
  fake.chatReply =
    '```json\n{"prompt": {"passed": true, "score": 0.8, "note": "a yellow disc on blue"}, "criteria": [{"criterion": "Product centred", "passed": false, "note": "the disc is centred but there is no product"}], "summary": "Mostly on brief."}\n```';
  const url = await images(t);
  const res = await review(h, {
    url: url('/scene.png'),
    prompt: 'a yellow sun in a blue sky',
    criteria: ['product centred', 'in focus'],
  });
  assert.equal(res.status, 200, res.text);
  const { result } = res.json.data;
  assert.deepEqual(criteriaOf(result.findings), [
    '✓ resolution',
    '✓ in focus',
    '✓ exposure',
    '✓ safe for work',
    '✓ matches the prompt',
    '✗ product centred',
  ]);
  assert.equal(result.findings[4].note, 'a yellow disc on blue');
  assert.equal(result.findings[5].note, 'the disc is centred but there is no product');
  assert.equal(result.score, Math.round(((4 + 0.8 + 0) / 6) * 100) / 100);
  assert.equal(result.verdict, 'fail');
  assert.match(
    result.summary,
    /^Passed 5 of 6 checks; failed: product centred \(the disc is centred but there is no product\)\. Mostly on brief\.$/,
  );
  const [chat] = chats();
  assert.equal(chats().length, 1, 'one chat completion');
  assert.equal(chat.json.model, 'vision-test');
  assert.equal(chat.json.temperature, 0);
  const content = chat.json.messages[1].content;
  const asked = content.find((c: { type: string }) => c.type === 'text').text;
  assert.match(asked, /"prompt":"a yellow sun in a blue sky"/);
  assert.match(asked, /"criteria":\["product centred"\]/, 'only the free-text criteria are asked');
  assert.match(content.find((c: { type: string }) => c.type === 'image_url').image_url.url, /^data:image\/png;base64,/);
  assert.match(chat.json.messages[0].content, /strict JSON/);
});

test('an unusable judge reply fails the task REVIEW_FAILED after 4 attempts, free of charge', async (t) => {
  const { fake, h, chats } = await withVision(t);
  fake.chatReply = '{"prompt": null, "criteria": [], "summary": "I did not look"}';
  const url = await images(t);
  const res = await review(h, { url: url('/scene.png'), criteria: ['product centred'] });
  assert.equal(res.status, 500);
  assert.equal(res.json.code, 'UNKNOWN_ERROR');
  const id = /task (tsk_\w+) failed: REVIEW_FAILED/.exec(res.json.message)?.[1];
  assert.ok(id, res.json.message);
  const task = await waitForTask(h, id);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'REVIEW_FAILED');
  assert.match(task.errors[0].message, /0 criteria answered, 1 asked/);
  assert.equal(chats().length, 4);
  assert.equal((await accountOf(h)).balance, '100');
  fake.mode = 'refusal';
  const refused = await review(h, { url: url('/scene.png'), prompt: 'a fox' });
  assert.match(refused.json.message, /failed: REVIEW_FAILED/, 'a refusal is REVIEW_FAILED');
});

test('a judge slower than providers.vision.timeoutMs fails TIMEOUT', async (t) => {
  // Room for each attempt's request to reach the fake before the client gives up on it, on a loaded machine too.
  const { fake, h, chats } = await withVision(t, { timeoutMs: 600 });
  fake.delayMs = 5000;
  const url = await images(t);
  const res = await review(h, { url: url('/scene.png'), prompt: 'a sun', sync: false });
  const task = await waitForTask(h, res.json.data.task.id, 30_000);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'TIMEOUT');
  // The last attempt's request may still be arriving at the fake when the client has given up on it.
  await eventually(() => chats().length === 4, 5000).catch(() => undefined);
  assert.equal(chats().length, 4, 'retried, then reported');
});

test('past providers.vision.concurrency a review fails PROVIDERS_BUSY', async (t) => {
  const { fake, h, chats } = await withVision(
    t,
    { concurrency: 1 },
    { work: { lanes: { 'image.review': 2 }, retryBaseMs: 1 } },
  );
  let open = () => {};
  fake.gate = new Promise<void>((resolve) => (open = resolve)); // the judge stays busy with the first review until the second has failed
  t.after(() => open());
  fake.chatReply = '{"prompt": {"passed": true, "score": 1, "note": "yes"}, "criteria": [], "summary": "ok"}';
  const url = await images(t);
  const a = await review(h, { url: url('/scene.png'), prompt: 'a sun', sync: false });
  await eventually(() => chats().length === 1, 15_000);
  const b = await review(h, { url: url('/scene.png'), prompt: 'a sun', sync: false });
  const busy = await waitForTask(h, b.json.data.task.id, 15_000);
  assert.equal(busy.status, 'failed');
  assert.equal(busy.errors[0].code, 'PROVIDERS_BUSY');
  open();
  const first = await waitForTask(h, a.json.data.task.id, 15_000);
  assert.equal(first.result.verdict, 'pass');
  assert.equal(chats().length, 1, 'the busy review never reached the judge');
});

test('a URL that cannot be fetched fails FETCH_FAILED; sync false answers 202 to poll', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await images(t);
  const res = await review(h, { url: url('/missing.png') });
  assert.equal(res.status, 500);
  assert.match(
    res.json.message,
    /failed: FETCH_FAILED \(cannot fetch the image: 127\.0\.0\.1:\d+ answered HTTP 404\)$/,
    'the sync 500 says why',
  );
  const queued = await review(h, { url: url('/scene.png'), sync: false });
  assert.equal(queued.status, 202);
  assert.deepEqual(Object.keys(queued.json.data), ['task', 'access']);
  assert.deepEqual(queued.json.data.task, { id: queued.json.data.task.id, status: 'pending' });
  const done = await waitForTask(h, queued.json.data.task.id);
  assert.equal(done.result.verdict, 'pass');
});

test('the body is checked by the schema; the scope image:review is needed and PATs are refused', async (t) => {
  const h = await startService(t);
  const cases: Array<[string, unknown, (string | number)[]]> = [
    ['missing url', { criteria: ['no text'] }, ['url']],
    ['eleven criteria', { url: 'https://e.com/a.png', criteria: Array(11).fill('sharp') }, ['criteria']],
    ['an empty criterion', { url: 'https://e.com/a.png', criteria: ['  '] }, ['criteria', 0]],
    ['a criterion over 200 characters', { url: 'https://e.com/a.png', criteria: ['x'.repeat(201)] }, ['criteria', 0]],
    ['an empty prompt', { url: 'https://e.com/a.png', prompt: '' }, ['prompt']],
  ];
  for (const [name, body, path] of cases) {
    const res = await review(h, body as Record<string, unknown>);
    assert.equal(res.status, 400, name);
    assert.equal(res.json.success, false, name);
    assert.deepEqual(res.json.error[0].path, path, name);
  }
  const narrow = await h.server.services.tokens.issueAccessToken(h.accountId, ['image:rate'], 60_000);
  const denied = await review(h, { url: 'https://e.com/a.png' }, narrow.accessToken);
  assert.equal(denied.status, 403);
  const { access } = (await review(h, { url: 'http://10.0.0.1/a.png', sync: false }, h.token)).json.data;
  assert.equal((await review(h, { url: 'https://e.com/a.png' }, access.publicAccessToken)).json.code, 'UNAUTHORIZED');
  assert.equal(
    (await h.request('GET', '/tasks?type=image.review', { auth: h.apiKey })).json.data.length,
    1,
    'only the token one was created',
  );
});

test('webhooks carry the review and the metadata; listing by type and estimate know image.review', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, {
    config: { ...LOCAL, webhooks: { allowPrivateAddresses: true }, review: { price: '0.0025' } },
  });
  const url = await images(t);
  const res = await review(h, {
    url: url('/scene.png'),
    metadata: { order: 42 },
    webhook: { custom: [{ url: receiver.url('/hook') }] },
  });
  assert.equal(res.json.data.task.cost, '0.0025', 'the configured price');
  const [event] = await receiver.waitFor(1);
  assert.equal(event.json.type, 'task.image.review.completed');
  assert.equal(event.json.data.taskId, res.json.data.task.id);
  assert.deepEqual(event.json.data.metadata, { order: 42 });
  assert.equal(event.json.data.result.verdict, 'pass');

  await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [url('/scene.png')], sync: false } });
  const listed = (await h.request('GET', '/tasks?type=image.review', { auth: h.apiKey })).json.data;
  assert.deepEqual(
    listed.map((x: { id: string }) => x.id),
    [res.json.data.task.id],
  );
  const estimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.review', request: { url: 'https://e.com/a.png' } },
  });
  assert.equal(estimate.status, 200, estimate.text);
  assert.deepEqual(estimate.json.data, {
    type: 'image.review',
    estimatedCost: '0.0025',
    items: ['0.0025'],
    currency: 'USD',
  });
  const refused = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.review', request: { url: 'https://e.com/a.png', criteria: ['looks festive'] } },
  });
  assert.equal(refused.json.code, 'VALIDATION_ERROR', 'estimate validates like create');
});
