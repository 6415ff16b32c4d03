import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime } from '../../src/domain/time.js';
import { consoleClient, consoleSignIn } from '../helpers/console.js';
import { eventually, type Harness, startService, waitForTask, webhooksQuiet } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';

async function echo(h: Harness, body: Record<string, unknown> = {}, auth = h.apiKey): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

const apiTask = async (h: Harness, id: string) =>
  (await h.request('GET', `/tasks/${id}`, { auth: h.apiKey })).json.data;

/** The text of one section of the inspector, by its heading's id. */
const section = (html: string, headingId: string): string =>
  /<section[^>]*>[\s\S]*?<\/section>/g.exec(html.slice(html.indexOf(`id="${headingId}"`) - 60))?.[0] ?? '';

test('the inspector shows the task, its request as submitted, its result, and each item with its error', async (t) => {
  const h = await startService(t);
  const id = await echo(h, {
    items: 3,
    price: '0.02',
    failItems: [1],
    failCode: 'INVALID_INPUT',
    metadata: { order: 'o-9' },
  });
  const failedId = await echo(h, { failItems: [0], failCode: 'RESTRICTED_CONTENT' });
  const task = await waitForTask(h, id);
  await waitForTask(h, failedId);
  const c = await consoleSignIn(h);

  const page = await c.get(`/console/tasks/${id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>Task tsk_/);
  assert.match(page.text, /<dt>Status<\/dt><dd><span class="badge completed">completed<\/span>/);
  assert.match(page.text, /<dt>Type<\/dt><dd>test\.echo<\/dd>/);
  assert.match(page.text, /<dt>Cost \(USD\)<\/dt><dd>0\.04<\/dd>/, 'two items charged');
  assert.match(page.text, /<dt>Key<\/dt><dd><span title="[^"]+">harness<\/span>/);
  assert.match(page.text, /2 succeeded, 1 failed, of 3/);
  const request = section(page.text, 'request-heading');
  assert.ok(request.includes('&quot;order&quot;: &quot;o-9&quot;'), 'the request as JSON');
  assert.ok(request.includes('&quot;failCode&quot;: &quot;INVALID_INPUT&quot;'));
  const result = section(page.text, 'result-heading');
  assert.ok(
    result.includes(JSON.stringify(task.result, null, 2).replaceAll('"', '&quot;')),
    'the result as the API shows it',
  );
  const items = section(page.text, 'items-heading');
  assert.equal((items.match(/<tr data-index=/g) ?? []).length, 3);
  assert.match(
    items,
    /<tr data-index="1">[\s\S]*?badge failed[\s\S]*?<code>INVALID_INPUT<\/code><\/td><td class="item-message">item 1 refused<\/td>/,
  );
  assert.equal(page.text.includes('Cancel task'), false, 'no cancel once settled');
  assert.equal(page.text.includes('id="live"'), false, 'no live progress once settled');

  const failed = await c.get(`/console/tasks/${failedId}`);
  const errors = section(failed.text, 'errors-heading');
  assert.match(errors, /<li><code>RESTRICTED_CONTENT<\/code><\/li>/, "a failed task's errors");
  assert.match(failed.text, /<dt>Cost \(USD\)<\/dt><dd>0<\/dd>/);
});

test('the inspector shows every image an item made as a thumbnail, with its rating and review verdict; items are numbered from 1', async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', model: 'auto', size: 'square', count: 2, rating: true },
  });
  const made = await waitForTask(h, created.json.data.taskId);
  const [first, second] = made.result.images;
  const reviewed = await h.request('POST', '/image/review', { auth: h.apiKey, body: { url: first.service_url } });
  assert.equal(reviewed.status, 200, reviewed.text);
  const verdict = reviewed.json.data.result.verdict;
  const c = await consoleSignIn(h);

  const page = await c.get(`/console/tasks/${made.id}`);
  const items = section(page.text, 'items-heading');
  const row = (index: number) =>
    /<tr data-index="\d+">[\s\S]*?<\/tr>/g.exec(items.slice(items.indexOf(`<tr data-index="${index}">`)))?.[0] ?? '';
  for (const [index, image] of [first, second].entries()) {
    const cells = row(index);
    assert.match(
      cells,
      new RegExp(`^<tr data-index="${index}"><th scope="row" class="num">${index + 1}</th>`),
      'numbered from 1, as the CLI numbers items',
    );
    assert.match(
      cells,
      new RegExp(
        `<a href="/console/gallery/${made.id}/${index}"><img src="/console/thumbs/${made.id}/${index}\\?w=160" srcset="[^"]+ 160w, [^"]+ 320w" sizes="160px" width="160" height="160" alt="a lighthouse"/></a>`,
      ),
      'a thumbnail linking to its full view',
    );
    assert.ok(cells.includes(`Rating: ${image.rating.level}`), 'its rating');
    assert.doesNotMatch(cells, /Open image/, 'the picture, not a link to it');
    assert.match(cells, new RegExp(`<summary>Item ${index + 1} result</summary>`));
  }
  assert.ok(row(0).includes(`Review: ${verdict}`), 'the first image’s review verdict');
  assert.doesNotMatch(row(1), /Review:/, 'the second was not reviewed');
  for (const [, src] of items.matchAll(/src="(\/console\/thumbs\/[^"]+)"/g)) {
    const res = await fetch(`${h.url}${src}`, { headers: { cookie: `imgtask_console=${c.cookie}` } });
    assert.equal(res.status, 200, src);
    assert.equal(res.headers.get('content-type'), 'image/webp');
  }

  // A review's own inspector links the image it was about: it made nothing to show.
  const review = await c.get(`/console/tasks/${reviewed.json.data.taskId}`);
  assert.doesNotMatch(section(review.text, 'items-heading'), /<img /);
});

test('a pending task shows its progress and a live status stream, opened with a PAT for this task', async (t) => {
  const h = await startService(t);
  const id = await echo(h, { items: 2, delayMs: 10_000 });
  const c = await consoleSignIn(h);
  const page = await c.get(`/console/tasks/${id}`);
  assert.match(page.text, /<progress id="live-bar" class="progress" max="2" value="0"/);
  assert.match(page.text, /0 of 2 items finished/);
  const events = /<section id="live"[^>]*data-events="([^"]+)"/.exec(page.text)?.[1].replaceAll('&amp;', '&');
  assert.ok(events, 'the live section names its stream');
  assert.match(events, new RegExp(`^/tasks/${id}/events\\?token=pat_`));

  const controller = new AbortController();
  const stream = await fetch(`${h.url}${events}`, { signal: controller.signal });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = stream.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  assert.match(text, /^event: task\n/);
  const data = JSON.parse(/data: (.*)/.exec(text)![1]);
  assert.equal(data.id, id);
  assert.equal(data.progress.total, 2);
  await h.request('POST', `/tasks/${id}/cancel`, { auth: h.apiKey });
});

test('cancel settles a pending task as cancelled; a settled one is refused with TASK_NOT_PENDING; a cross-site post changes nothing', async (t) => {
  const h = await startService(t);
  const id = await echo(h, { items: 2, delayMs: 10_000 });
  const c = await consoleSignIn(h);
  const page = await c.get(`/console/tasks/${id}`);
  assert.match(
    page.text,
    new RegExp(`<form method="post" action="/console/tasks/${id}/cancel"`),
    'a Cancel button while pending',
  );

  const foreign = await c.post(`/console/tasks/${id}/cancel`, {}, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 401);
  const noOrigin = await fetch(`${h.url}/console/tasks/${id}/cancel`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: c.csrf }).toString(),
  });
  assert.equal(noOrigin.status, 401, 'a post without an origin is refused');
  const stale = await c.post(`/console/tasks/${id}/cancel`, { _csrf: 'not-the-token' });
  assert.equal(stale.status, 401, 'a post without the form token is refused');
  assert.equal((await apiTask(h, id)).status, 'pending', 'none of them cancelled it');

  const cancelled = await c.post(`/console/tasks/${id}/cancel`);
  assert.equal(cancelled.status, 303);
  assert.equal(cancelled.location, `/console/tasks/${id}?done=cancelled`);
  const task = await apiTask(h, id);
  assert.equal(task.status, 'failed');
  assert.deepEqual(
    task.errors.map((e: { code: string }) => e.code),
    ['TASK_CANCELLED'],
  );
  const after = await c.get(cancelled.location);
  assert.match(after.text, /class="notice ok"[^>]*>Cancelled:/);
  assert.match(after.text, /<span class="badge failed">failed<\/span>/);
  assert.equal(after.text.includes('Cancel task'), false, 'no Cancel button once settled');

  const again = await c.post(`/console/tasks/${id}/cancel`);
  assert.equal(again.status, 409);
  assert.match(
    again.text,
    /<strong>TASK_NOT_PENDING<\/strong>: task tsk_[0-9A-Za-z]+ has already settled: it is failed/,
  );
});

test('cancel needs the session scope tasks:cancel, as the API route does', async (t) => {
  const h = await startService(t);
  const id = await echo(h, { delayMs: 10_000 });
  const { accessToken } = await h.server.services.tokens.issueAccessToken(h.accountId, ['tasks:read'], 3_600_000);
  const signIn = await fetch(`${h.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(h.url).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: accessToken, next: '/console/tasks' }).toString(),
  });
  const cookie = /imgtask_console=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(cookie);
  const c = consoleClient(h, cookie);
  await c.get(`/console/tasks/${id}`);
  const refused = await c.post(`/console/tasks/${id}/cancel`);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /<strong>INSUFFICIENT_SCOPE<\/strong>: this route needs the scope tasks:cancel/);
  assert.equal((await apiTask(h, id)).status, 'pending');
  await h.request('POST', `/tasks/${id}/cancel`, { auth: h.apiKey });
});

test('run again makes a new task of the same type with the same request, as the original key or one chosen when it is gone', async (t) => {
  const h = await startService(t);
  const { services } = h.server;
  const body = { items: 2, price: '0.03', metadata: { order: 'o-5' } };
  const id = await echo(h, body);
  const original = await waitForTask(h, id);
  const c = await consoleSignIn(h);

  const res = await c.post(`/console/tasks/${id}/again`);
  assert.equal(res.status, 303);
  const newId = /^\/console\/tasks\/(tsk_[0-9A-Za-z]+)\?done=again&from=/.exec(res.location ?? '')?.[1];
  assert.ok(newId && newId !== id, 'to the new task');
  const copy = await apiTask(h, newId);
  assert.equal(copy.type, 'test.echo');
  assert.deepEqual(copy.request, original.request, 'the same request');
  assert.equal(copy.apiKeyId, h.keyId, 'made by the original key');
  assert.match((await c.get(res.location!)).text, new RegExp(`A new task with the request of ${id}`));

  const generated = await waitForTask(
    h,
    (
      await h.request('POST', '/image/generate', {
        auth: h.apiKey,
        body: { prompt: 'a red kite', model: 'auto', count: 2 },
      })
    ).json.data.taskId,
  );
  const regenerated = await c.post(`/console/tasks/${generated.id}/again`);
  assert.equal(regenerated.status, 303, regenerated.text.slice(0, 400));
  const newImage = await apiTask(h, /tsk_[0-9A-Za-z]+/.exec(regenerated.location!)![0]);
  assert.equal(newImage.type, 'image.generate');
  assert.deepEqual(newImage.request, generated.request, "image.generate's stored request passes its body schema again");

  // A task whose key is deleted: the form asks which key to use.
  const second = await services.apiKeys.create({ accountId: h.accountId, name: 'short-lived' });
  const orphan = await echo(h, { metadata: { order: 'o-6' } }, second.raw);
  await waitForTask(h, orphan);
  await services.apiKeys.revoke(h.accountId, second.apiKey.id);
  const page = await c.get(`/console/tasks/${orphan}`);
  assert.match(
    page.text,
    /<label for="again-key">Its key is gone: run it with<select id="again-key" name="keyId" required="">/,
  );
  const unchosen = await c.post(`/console/tasks/${orphan}/again`);
  assert.equal(unchosen.status, 400);
  assert.match(unchosen.text, /<strong>VALIDATION_ERROR<\/strong>: choose the key to run it with/);
  const chosen = await c.post(`/console/tasks/${orphan}/again`, { keyId: h.keyId });
  assert.equal(chosen.status, 303);
  assert.equal(
    (await apiTask(h, /tsk_[0-9A-Za-z]+/.exec(chosen.location!)![0])).apiKeyId,
    h.keyId,
    'made by the key chosen',
  );
  const other = await services.accounts.create('initech', 1_000_000);
  const theirKey = await services.apiKeys.create({ accountId: other.id, name: 'theirs' });
  assert.equal(
    (await c.post(`/console/tasks/${orphan}/again`, { keyId: theirKey.apiKey.id })).status,
    404,
    "another account's key is not found",
  );
});

test('run again refuses, with why, a stored request its type no longer takes', async (t) => {
  const h = await startService(t);
  const { store } = h.server.services;
  const now = isoTime(Date.now());
  // As a task stored by an older release whose schema took what this one refuses.
  await store.tasks.create(
    {
      id: 'tsk_0legacy',
      type: 'test.echo',
      status: 'pending',
      accountId: h.accountId,
      apiKeyId: h.keyId,
      request: { items: 0, price: '0.01' },
      items: [{ status: 'pending' }],
      estimate: 0,
      cost: 0,
      result: null,
      createdAt: now,
      updatedAt: now,
    },
    {},
  );
  await store.tasks.settle({
    id: 'tsk_0legacy',
    status: 'failed',
    result: null,
    errors: [{ code: 'PROVIDER_ERROR' }],
    cost: 0,
    at: now,
  });
  const c = await consoleSignIn(h);
  const res = await c.post('/console/tasks/tsk_0legacy/again');
  assert.equal(res.status, 400);
  assert.match(
    res.text,
    /<strong>VALIDATION_ERROR<\/strong>: its request no longer passes the checks of test\.echo: items: /,
  );
  assert.equal((await store.tasks.list(h.accountId, { limit: 5 })).tasks.length, 1, 'nothing was created');
});

test('the inspector lists the event sent, each webhook delivery and every attempt', async (t) => {
  const h = await startService(t, {
    config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 20, 40], timeoutMs: 500 } },
  });
  const receiver = await startReceiver(t, [500, 200]);
  const custom = await startReceiver(t);
  const hook = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url('/hook') } });
  assert.equal(hook.status, 201, hook.text);
  const id = await echo(h, { metadata: { order: 'o-8' }, webhook: { custom: [{ url: custom.url('/own') }] } });
  await waitForTask(h, id);
  await receiver.waitFor(2);
  await custom.waitFor(1);
  await webhooksQuiet(h);
  const c = await consoleSignIn(h);

  const page = await c.get(`/console/tasks/${id}`);
  const events = section(page.text, 'events-heading');
  assert.match(events, /<dt>Type<\/dt><dd>task\.test\.echo\.completed<\/dd>/);
  assert.match(events, /<dt>Event<\/dt><dd><code>evt_/);
  assert.ok(events.includes('&quot;order&quot;: &quot;o-8&quot;'), 'the payload sent');
  const deliveries = events.split('<article class="delivery">').slice(1);
  assert.equal(deliveries.length, 2, 'one delivery per endpoint');
  const toHook = deliveries.find((d) => d.includes(receiver.url('/hook'))) ?? '';
  assert.match(toHook, /badge delivered/);
  assert.match(toHook, new RegExp(`webhook ${hook.json.data.id}`));
  assert.equal((toHook.match(/<tr><th scope="row" class="num">/g) ?? []).length, 2, 'both attempts');
  assert.match(toHook, /<td class="num">500<\/td><td class="num">\d+ ms<\/td><td>HTTP 500<\/td>/);
  assert.match(toHook, /<td class="num">200<\/td><td class="num">\d+ ms<\/td><td><\/td>/);
  const toCustom = deliveries.find((d) => d.includes(custom.url('/own'))) ?? '';
  assert.match(toCustom, /the task&#39;s own endpoint \(unsigned\)|the task's own endpoint \(unsigned\)/);

  const quiet = await echo(h, { webhook: { dashboard: false } });
  await waitForTask(h, quiet);
  await eventually(async () =>
    /This task was created with <code>webhook.dashboard: false<\/code>/.test(
      (await c.get(`/console/tasks/${quiet}`)).text,
    ),
  );
});
