import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';

const RAW_KEY = /<code id="raw-key">(mak_[0-9A-Za-z]+)<\/code>/;

/** A date some days ahead, as the form's date field sends it. */
const daysAhead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function createKey(
  c: ConsoleClient,
  fields: Record<string, string | string[]>,
): Promise<{ raw: string; text: string }> {
  const res = await c.post('/console/keys', fields);
  assert.equal(res.status, 201, res.text);
  const raw = RAW_KEY.exec(res.text)?.[1];
  assert.ok(raw, 'the answer shows the raw key');
  return { raw, text: res.text };
}

const apiStatus = async (h: Harness, key: string) => (await h.request('GET', '/tasks?limit=1', { auth: key })).status;

test('a new key is shown once with a copy button, works on the API, and is listed with its scopes, limits and usage', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const expiresOn = daysAhead(10);
  const res = await c.post('/console/keys', {
    name: 'ci runner',
    scopes: ['tasks:read', 'image:generate'],
    spendingLimit: '5',
    spendingLimitPeriod: 'week',
    requestsPerMinute: '30',
    expiresOn,
  });
  assert.equal(res.status, 201);
  assert.equal(res.location, null, 'answered in place, not redirected');
  assert.match(res.headers.get('cache-control') ?? '', /no-store/);
  const raw = RAW_KEY.exec(res.text)?.[1];
  assert.ok(raw);
  assert.match(res.text, /data-copy="raw-key"/);
  assert.match(res.text, /it will not be shown again/);

  assert.equal(await apiStatus(h, raw), 200, 'the key works on the JSON API');
  const created = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'a lighthouse', model: 'auto' },
  });
  assert.equal(created.status, 201);
  const task = await waitForTask(h, created.json.data.taskId);

  const page = await c.get('/console/keys');
  assert.equal(page.status, 200);
  assert.equal(page.text.includes(raw), false, 'a later visit never shows the raw key');
  const row = page.text
    .split('<tr id="key-')
    .find((part) => part.includes('ci runner'))
    ?.split('</tr>')[0];
  assert.ok(row, 'the key is listed');
  for (const text of [
    'tasks:read',
    'image:generate',
    '$5 per week',
    `spent this week: $${task.cost} of $5`,
    '>30<',
    `datetime="${expiresOn}T00:00:00.000Z"`,
  ])
    assert.ok(row.includes(text), `the row shows ${text}`);
  assert.equal(row.includes('image:rate'), false, 'only the chosen scopes');
  const usage = /<table class="key-usage">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? '';
  assert.match(
    usage,
    new RegExp(
      `ci runner</th><td class="num">1</td><td class="num">1</td><td class="num">${task.cost.replace('.', '\\.')}</td>`,
    ),
    'usage per key counts the task',
  );
});

test('rotating shows a new raw key once; the old key keeps its grace, or stops at once with none', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const { raw: first } = await createKey(c, { name: 'rotating', scopes: ['tasks:read'] });
  const id = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.name === 'rotating')!.id;

  const graced = await c.post(`/console/keys/${id}/rotate`, { graceSeconds: '3600' });
  assert.equal(graced.status, 201);
  const second = RAW_KEY.exec(graced.text)?.[1];
  assert.ok(second && second !== first, 'a new raw key');
  assert.match(graced.text, /keeps working until/);
  assert.equal(await apiStatus(h, second), 200);
  assert.equal(await apiStatus(h, first), 200, 'the old key works during its grace');

  const secondId = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.rotatedFrom === id)!.id;
  const now = await c.post(`/console/keys/${secondId}/rotate`, { graceSeconds: '0' });
  assert.equal(now.status, 201);
  const third = RAW_KEY.exec(now.text)?.[1];
  assert.ok(third && third !== second);
  assert.match(now.text, /no longer works/);
  assert.equal(await apiStatus(h, second), 401, 'rotated with no grace: the old key is refused');
  assert.equal(await apiStatus(h, third), 200);
  assert.equal((await c.get('/console/keys')).text.includes(third), false);
});

test('editing a key changes what it is held to, field by field: the API sees the change; an emptied field removes the setting', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const { raw } = await createKey(c, {
    name: 'editable',
    scopes: ['tasks:read'],
    spendingLimit: '5',
    spendingLimitPeriod: 'month',
    requestsPerMinute: '2',
  });
  const id = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.name === 'editable')!.id;
  assert.match((await c.get('/console/keys')).text, new RegExp(`href="/console/keys/${id}/edit"`));

  const form = await c.get(`/console/keys/${id}/edit`);
  assert.equal(form.status, 200);
  assert.match(form.text, /<title>Edit key editable · imgtask console<\/title>/);
  assert.match(form.text, /name="spendingLimit" inputmode="decimal" value="5"/);
  assert.match(form.text, /name="requestsPerMinute"[^>]*value="2"/);

  const saved = await c.post(`/console/keys/${id}`, {
    name: 'renamed',
    spendingLimit: '7.5',
    spendingLimitPeriod: 'day',
    requestsPerMinute: '',
    expiresOn: daysAhead(30),
  });
  assert.equal(saved.status, 303, saved.text);
  assert.equal(saved.location, '/console/keys?done=updated');
  assert.match((await c.get(saved.location!)).text, /The key was changed/);
  const key = await h.server.services.apiKeys.get(h.accountId, id);
  assert.equal(key.name, 'renamed');
  assert.equal(key.spendingLimit, '7.5');
  assert.equal(key.spendingLimitPeriod, 'day');
  assert.equal(key.requestsPerMinute, undefined, 'an emptied field removes the limit');
  assert.equal(key.expiresAt, `${daysAhead(30)}T00:00:00.000Z`);
  assert.equal(await apiStatus(h, raw), 200);
  for (let i = 0; i < 3; i++) assert.equal(await apiStatus(h, raw), 200, 'no request limit any more');

  // A grace-period expiry to the minute survives a save that does not touch the day.
  const exact = new Date(Date.now() + 5 * 3_600_000).toISOString();
  await h.server.services.apiKeys.update(h.accountId, id, { expiresAt: exact });
  const kept = await c.post(`/console/keys/${id}`, {
    name: 'renamed again',
    spendingLimit: '7.5',
    spendingLimitPeriod: 'day',
    requestsPerMinute: '',
    expiresOn: exact.slice(0, 10),
  });
  assert.equal(kept.status, 303);
  const afterRename = await h.server.services.apiKeys.get(h.accountId, id);
  assert.equal(afterRename.name, 'renamed again');
  assert.equal(afterRename.expiresAt, exact, 'the expiry keeps its minute');

  const nothing = await c.post(`/console/keys/${id}`, {
    name: 'renamed again',
    spendingLimit: '7.5',
    spendingLimitPeriod: 'day',
    requestsPerMinute: '',
    expiresOn: exact.slice(0, 10),
  });
  assert.equal(nothing.location, '/console/keys?done=unchanged');

  const refused = await c.post(`/console/keys/${id}`, {
    name: 'renamed again',
    spendingLimit: 'lots',
    spendingLimitPeriod: 'day',
    requestsPerMinute: '0',
    expiresOn: '',
  });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /Spending limit: /);
  assert.match(refused.text, /Requests per minute: /);
  assert.match(refused.text, /value="lots"/, 'what was typed is kept');
  assert.equal((await h.server.services.apiKeys.get(h.accountId, id)).spendingLimit, '7.5', 'nothing changed');
});

test('deleting a key revokes it: the API answers 401 for it', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const { raw } = await createKey(c, { name: 'short-lived', scopes: ['tasks:read'] });
  const id = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.name === 'short-lived')!.id;
  const res = await c.post(`/console/keys/${id}/delete`);
  assert.equal(res.status, 303);
  assert.equal(res.location, '/console/keys?done=deleted');
  assert.equal(await apiStatus(h, raw), 401);
  const page = await c.get(res.location);
  assert.match(page.text, /The key was deleted/);
  assert.equal(page.text.includes(id), false, 'no longer listed');
});

test('the 101st key is refused with API_KEY_LIMIT_REACHED shown on the form, which keeps what was typed', async (t) => {
  const h = await startService(t);
  // The harness holds one key: 99 more make the limit of 100.
  for (let i = 0; i < 99; i++) await h.server.services.apiKeys.create({ accountId: h.accountId, name: `bulk ${i}` });
  const c = await consoleSignIn(h);
  const res = await c.post('/console/keys', { name: 'one too many', scopes: ['tasks:read'], spendingLimit: '7' });
  assert.equal(res.status, 400);
  assert.match(res.text, /class="notice error"[\s\S]*API_KEY_LIMIT_REACHED/);
  assert.match(res.text, /value="one too many"/);
  assert.match(res.text, /name="spendingLimit"[^>]*value="7"/);
  assert.equal(RAW_KEY.test(res.text), false);
  assert.equal((await h.server.services.apiKeys.list(h.accountId)).length, 100);
});

test("a form the route's schema refuses is shown again with the reason as text and the values kept (400)", async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const res = await c.post('/console/keys', {
    name: 'budget',
    scopes: ['tasks:read'],
    spendingLimit: 'lots',
    requestsPerMinute: '12',
  });
  assert.equal(res.status, 400);
  assert.match(res.text, /Spending limit: a decimal USD amount/);
  assert.match(res.text, /value="lots"/);
  assert.match(res.text, /name="requestsPerMinute"[^>]*value="12"/);
  assert.match(res.text, /id="scope-tasks:read" name="scopes" value="tasks:read" checked/);
  assert.doesNotMatch(res.text, /id="scope-image:rate"[^>]*checked/, 'unchecked scopes stay unchecked');
  const noScope = await c.post('/console/keys', { name: 'nothing' });
  assert.equal(noScope.status, 400, 'no scope checked is refused by the service');
  assert.match(noScope.text, /VALIDATION_ERROR/);
  assert.equal((await h.server.services.apiKeys.list(h.accountId)).length, 1, 'nothing was created');
});

test('a key name with markup is shown as text', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const payload = '<script>alert(1)</script>';
  await createKey(c, { name: payload, scopes: ['tasks:read'] });
  const page = await c.get('/console/keys');
  assert.equal(page.text.includes(payload), false);
  assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
});

test('with no keys the page explains them and shows the create form', async (t) => {
  const h = await startService(t);
  await h.server.services.apiKeys.revoke(h.accountId, h.keyId);
  const c = await consoleSignIn(h);
  const page = await c.get('/console/keys');
  assert.equal(page.status, 200);
  assert.match(page.text, /No keys yet/);
  assert.match(page.text, /<form method="post" action="\/console\/keys"/);
});

test("another account's key answers 404 to edit, rotate and delete, and stays live", async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const theirs = await h.server.services.apiKeys.create({ accountId: other.id, name: 'theirs' });
  const c = await consoleSignIn(h);
  for (const action of ['rotate', 'delete', '']) {
    const res = await c.post(`/console/keys/${theirs.apiKey.id}${action ? `/${action}` : ''}`, { name: 'mine now' });
    assert.equal(res.status, 404, action || 'edit');
    assert.match(res.text, /does not exist, or it is not yours/);
  }
  assert.equal((await c.get(`/console/keys/${theirs.apiKey.id}/edit`)).status, 404);
  assert.equal((await h.server.services.apiKeys.get(other.id, theirs.apiKey.id)).name, 'theirs');
  assert.equal(await apiStatus(h, theirs.raw), 200);
});

test('a cross-site post (a foreign Origin, or none) creates no key', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const foreign = await c.post(
    '/console/keys',
    { name: 'forged', scopes: ['tasks:read'] },
    { origin: 'https://evil.example' },
  );
  assert.equal(foreign.status, 401);
  assert.equal(RAW_KEY.test(foreign.text), false);
  const form = new URLSearchParams({ _csrf: c.csrf, name: 'forged', scopes: 'tasks:read' });
  const none = await fetch(`${h.url}/console/keys`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  assert.equal(none.status, 401);
  assert.equal((await h.server.services.apiKeys.list(h.accountId)).length, 1, 'only the harness key');
});

test('max concurrent and max priority: set on create, listed, changed on edit only when they differ, emptied to remove, refused out of range', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const blank = await c.get('/console/keys');
  assert.match(
    blank.text,
    /<label for="key-max-concurrent">Max concurrent[^<]*<\/label><input id="key-max-concurrent" name="maxConcurrent" type="number" min="1"/,
  );
  assert.match(
    blank.text,
    /<label for="key-max-priority">Max priority[^<]*<\/label><input id="key-max-priority" name="maxPriority" type="number" min="-10" max="10"/,
  );

  await createKey(c, { name: 'batch', scopes: ['tasks:read'], maxConcurrent: '3', maxPriority: '-4' });
  const id = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.name === 'batch')!.id;
  const created = await h.server.services.apiKeys.get(h.accountId, id);
  assert.deepEqual([created.maxConcurrent, created.maxPriority], [3, -4]);
  await createKey(c, { name: 'plain', scopes: ['tasks:read'], maxConcurrent: '', maxPriority: '' });
  const plainId = (await h.server.services.apiKeys.list(h.accountId)).find((key) => key.name === 'plain')!.id;
  const plain = await h.server.services.apiKeys.get(h.accountId, plainId);
  assert.deepEqual([plain.maxConcurrent, plain.maxPriority], [null, 0], 'empty fields leave the defaults');

  const page = await c.get('/console/keys');
  assert.match(
    page.text,
    /<th scope="col" class="num">Max concurrent<\/th><th scope="col" class="num">Max priority<\/th>/,
  );
  const row = (name: string) =>
    page.text
      .split('<tr id="key-')
      .find((part) => part.includes(name))
      ?.split('</tr>')[0] ?? '';
  assert.match(row('batch'), /<td class="num">3<\/td><td class="num">-4<\/td>/);
  assert.match(row('plain'), /<td class="num"><span class="muted">no bound<\/span><\/td><td class="num">0<\/td>/);

  const form = await c.get(`/console/keys/${id}/edit`);
  assert.match(
    form.text,
    /<label for="edit-max-concurrent">Max concurrent[^<]*<\/label><input id="edit-max-concurrent" name="maxConcurrent"[^>]*value="3"/,
  );
  assert.match(form.text, /name="maxPriority"[^>]*value="-4"/);
  await h.server.services.apiKeys.update(h.accountId, id, { requestsPerMinute: 40 });
  const unchangedFields = {
    name: 'batch',
    spendingLimit: '',
    spendingLimitPeriod: 'month',
    requestsPerMinute: '40',
    expiresOn: '',
  };

  const raised = await c.post(`/console/keys/${id}`, { ...unchangedFields, maxConcurrent: '5', maxPriority: '-4' });
  assert.equal(raised.status, 303, raised.text);
  assert.equal(raised.location, '/console/keys?done=updated');
  const afterRaise = await h.server.services.apiKeys.get(h.accountId, id);
  assert.deepEqual([afterRaise.maxConcurrent, afterRaise.maxPriority, afterRaise.requestsPerMinute], [5, -4, 40]);

  const same = await c.post(`/console/keys/${id}`, { ...unchangedFields, maxConcurrent: '5', maxPriority: '-4' });
  assert.equal(same.location, '/console/keys?done=unchanged');

  const emptied = await c.post(`/console/keys/${id}`, { ...unchangedFields, maxConcurrent: '', maxPriority: '' });
  assert.equal(emptied.status, 303, emptied.text);
  const afterEmpty = await h.server.services.apiKeys.get(h.accountId, id);
  assert.deepEqual(
    [afterEmpty.maxConcurrent, afterEmpty.maxPriority, afterEmpty.requestsPerMinute],
    [null, 0, 40],
    'emptied fields remove the settings; the rest is kept',
  );

  const refusedEdit = await c.post(`/console/keys/${id}`, {
    ...unchangedFields,
    maxConcurrent: '0',
    maxPriority: '11',
  });
  assert.equal(refusedEdit.status, 400);
  assert.match(refusedEdit.text, /Max concurrent: /);
  assert.match(refusedEdit.text, /Max priority: /);
  assert.match(refusedEdit.text, /name="maxPriority"[^>]*value="11"/, 'what was typed is kept');
  const refusedCreate = await c.post('/console/keys', {
    name: 'too eager',
    scopes: ['tasks:read'],
    maxPriority: '1.5',
  });
  assert.equal(refusedCreate.status, 400);
  assert.match(refusedCreate.text, /Max priority: /);
  assert.equal(
    (await h.server.services.apiKeys.list(h.accountId)).some((key) => key.name === 'too eager'),
    false,
    'nothing was created',
  );
});
