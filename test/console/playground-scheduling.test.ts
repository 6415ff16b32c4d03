// The playground's Priority and Cancel after fields: sent as the body's priority and as the create's Cancel-After
// deadline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../helpers/console.js';
import { accountOf, type Harness, startService, waitForTask } from '../helpers/harness.js';

const FORM_TYPES = [
  'image.generate',
  'image.rate',
  'image.alt',
  'image.remove_background',
  'image.review',
  'video.generate',
];

const taskCount = async (h: Harness) => (await h.request('GET', '/tasks', { auth: h.apiKey })).json.data.length;
const taskOf = async (h: Harness, location: string | null) =>
  (await h.request('GET', `/tasks/${location!.split('/').pop()}`, { auth: h.apiKey })).json.data;

/** A key of the harness account with `maxPriority`, made through the service as the Keys page would. */
async function keyWith(h: Harness, maxPriority: number): Promise<string> {
  const { apiKey } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: `max ${maxPriority}`,
    maxPriority,
  });
  return apiKey.id;
}

/** The element of the form field with this id: its whole tag. */
const tagWithId = (html: string, id: string): string =>
  new RegExp(`<(input|select|textarea)[^>]*id="${id}"[^>]*>`).exec(html)?.[0] ?? '';

test('every form has a labelled Priority field (-10..10, 0 to start with) and a labelled, described Cancel after field', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  for (const type of FORM_TYPES) {
    const page = await c.get(`/console/playground?type=${type}`);
    const prefix = type.replace(/[^a-z0-9]+/gi, '-');
    const priority = tagWithId(page.text, `${prefix}-priority`);
    assert.match(priority, /type="number"/, type);
    assert.match(priority, /name="priority"/, type);
    assert.match(priority, /min="-10"/, type);
    assert.match(priority, /max="10"/, type);
    assert.match(priority, /value="0"/, `${type}: the default`);
    assert.match(page.text, new RegExp(`<label for="${prefix}-priority">Priority</label>`), type);
    const deadline = tagWithId(page.text, `${prefix}-cancel_after`);
    assert.match(deadline, /name="cancel_after"/, type);
    assert.match(deadline, new RegExp(`aria-describedby="${prefix}-cancel_after-hint"`), type);
    assert.match(page.text, new RegExp(`<label for="${prefix}-cancel_after">Cancel after</label>`), type);
    assert.match(
      page.text,
      new RegExp(`id="${prefix}-cancel_after-hint"[^>]*>Optional: a deadline such as 30s, 5m or 1h30m`),
      type,
    );
  }
});

test('a post sends the priority in the body and the deadline as Cancel-After would: the task shows both', async (t) => {
  const h = await startService(t);
  const high = await keyWith(h, 5);
  const c = await consoleSignIn(h);
  const before = Date.now();
  const res = await c.post('/console/playground/image.generate', {
    key: high,
    prompt: 'a lighthouse',
    model: 'auto',
    count: '1',
    priority: '5',
    cancel_after: '30s',
  });
  const after = Date.now();
  assert.equal(res.status, 303, res.text);
  const task = await taskOf(h, res.location);
  assert.equal(task.request.priority, 5);
  assert.equal(task.priority, 5);
  const at = Date.parse(task.deadlineAt);
  assert.ok(at >= before + 30_000 && at <= after + 30_000, `deadlineAt ${task.deadlineAt} is about now + 30s`);

  const rate = await c.post('/console/playground/image.rate', {
    key: h.keyId,
    mode: 'nsfw_sfw',
    urls: 'https://example.com/a.png',
    priority: '-4',
    cancel_after: '',
  });
  assert.equal(rate.status, 303, rate.text);
  const rated = await taskOf(h, rate.location);
  assert.deepEqual(
    [rated.request.priority, rated.priority, rated.deadlineAt],
    [-4, -4, undefined],
    'an empty Cancel after sets no deadline',
  );
});

test('the deadline applies: a task whose item outlives it fails TASK_EXPIRED, free', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  // The test task type has no form of its own: its body is the JSON field, the deadline the same field as everywhere.
  const res = await c.post('/console/playground/test.echo', {
    key: h.keyId,
    advanced: '{"items": 1, "delayMs": 60000}',
    cancel_after: '1s',
  });
  assert.equal(res.status, 303, res.text);
  const task = await waitForTask(h, res.location!.split('/').pop()!, 5000);
  assert.deepEqual([task.status, task.errors[0].code, task.cost], ['failed', 'TASK_EXPIRED', '0']);
});

test('a priority above the key’s maxPriority is refused with the service’s message, keeping what was typed; nothing is created', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const res = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: 'a lighthouse',
    model: 'auto',
    count: '1',
    priority: '3',
    cancel_after: '5m',
  });
  assert.equal(res.status, 400);
  assert.match(res.text, /role="alert"/);
  assert.match(
    res.text,
    /<strong>VALIDATION_ERROR<\/strong>: priority 3 is above the highest this key may ask for \(maxPriority 0\)/,
  );
  assert.match(tagWithId(res.text, 'image-generate-priority'), /value="3"/, 'the priority typed is kept');
  assert.match(tagWithId(res.text, 'image-generate-cancel_after'), /value="5m"/, 'the deadline typed is kept');
  assert.match(res.text, />a lighthouse<\/textarea>/);
  assert.equal(await taskCount(h), 0);
  assert.equal((await accountOf(h)).reserved, '0');
});

test('a bad Cancel after is shown at its field with the API’s message, keeping what was typed; nothing is created', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  for (const [value, message] of [
    ['soon', '&quot;soon&quot; is not a duration such as 30s, 5m or 1h30m'],
    ['500ms', '500ms is out of range: from 1s to 24h'],
    ['25h', '25h is out of range: from 1s to 24h'],
  ]) {
    const res = await c.post('/console/playground/image.generate', {
      key: h.keyId,
      prompt: 'a lighthouse',
      model: 'auto',
      count: '1',
      cancel_after: value,
    });
    assert.equal(res.status, 400, value);
    assert.ok(res.text.includes(`<code>Cancel-After</code>: ${message}`), `${value}: listed with the form's issues`);
    const field = tagWithId(res.text, 'image-generate-cancel_after');
    assert.match(field, /aria-invalid="true"/, `${value}: the field is marked invalid`);
    assert.match(field, /aria-describedby="image-generate-cancel_after-hint image-generate-cancel_after-issue"/, value);
    assert.ok(field.includes(`value="${value}"`), `${value}: kept`);
  }
  const both = await c.post('/console/playground/image.generate', {
    key: h.keyId,
    prompt: '',
    model: 'auto',
    count: '1',
    cancel_after: 'soon',
  });
  assert.equal(both.status, 400);
  assert.match(both.text, /<code>prompt<\/code>: Too small/, 'the body’s issues and the deadline’s are shown together');
  assert.match(both.text, /<code>Cancel-After<\/code>: /);
  assert.equal(await taskCount(h), 0);
});
