import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { eventually, startService } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';

const SECRET = /<code id="webhook-secret">(whsec_[^<]+)<\/code>/;
const RECEIVING = {
  config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 50, 100], timeoutMs: 1000 } },
};

/** Adds a webhook from the console; answers its id and the secret the answer showed. */
async function addWebhook(
  c: ConsoleClient,
  fields: Record<string, string | string[]>,
): Promise<{ id: string; secret: string; text: string }> {
  const res = await c.post('/console/webhooks', fields);
  assert.equal(res.status, 201, res.text);
  const secret = SECRET.exec(res.text)?.[1];
  assert.ok(secret, 'the answer shows the signing secret');
  const id = /href="\/console\/webhooks\/(wh_[^"]+)">Open the webhook/.exec(res.text)?.[1];
  assert.ok(id);
  return { id, secret, text: res.text };
}

/** The delivery log's row of one delivery. */
const rowOf = (page: string, deliveryId: string) =>
  page.split(`<tr id="delivery-${deliveryId}">`)[1]?.split('</tr>')[0] ?? '';

test('a webhook is added with its secret shown once, listed with its events and keys, and edited', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const url = 'https://hooks.example/in';
  const { id, secret, text } = await addWebhook(c, {
    url,
    events: ['task.completed', 'task.image.generate.failed'],
    apiKeyIds: [h.keyId],
  });
  assert.match(text, /it will not be shown again/);
  assert.match(text, /data-copy="webhook-secret"/);
  const api = (await h.request('GET', `/webhook/${id}`, { auth: h.token })).json.data;
  assert.equal(api.secret, secret, 'the secret shown is the one deliveries are signed with');
  assert.deepEqual(api.events, ['task.completed', 'task.image.generate.failed']);

  const list = await c.get('/console/webhooks');
  assert.equal(list.text.includes(secret), false, 'a later visit never shows the secret');
  const row = list.text.split(`<tr id="webhook-${id}">`)[1]?.split('</tr>')[0] ?? '';
  for (const shown of [url, 'task.completed', 'task.image.generate.failed', 'harness', 'Enabled'])
    assert.ok(row.includes(shown), `the list shows ${shown}`);

  const saved = await c.post(`/console/webhooks/${id}`, { url: 'https://hooks.example/other', events: ['all'] });
  assert.equal(saved.status, 303);
  assert.equal(saved.location, `/console/webhooks/${id}?done=saved`);
  const edited = (await h.request('GET', `/webhook/${id}`, { auth: h.token })).json.data;
  assert.equal(edited.url, 'https://hooks.example/other');
  assert.deepEqual(edited.events, ['all']);
  assert.equal(edited.enabled, false, 'the Enabled box left unchecked disables it');
  assert.deepEqual(
    (await h.server.services.webhooks.operatorView(h.accountId, id)).apiKeyIds,
    [],
    'no key checked: every key',
  );
  const page = await c.get(saved.location);
  assert.match(page.text, /Saved\./);
  assert.match(page.text, /Disabled/);
  assert.equal(page.text.includes(secret), false);
});

test('a test event is delivered and logged with its attempt; redeliver adds an attempt', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, RECEIVING);
  const c = await consoleSignIn(h);
  const { id } = await addWebhook(c, { url: receiver.url('/hook') });
  const tested = await c.post(`/console/webhooks/${id}/test`);
  assert.equal(tested.status, 303);
  assert.equal(tested.location, `/console/webhooks/${id}?done=tested`);
  const [first] = await receiver.waitFor(1);
  assert.equal(first.json.type, 'webhook.test');
  assert.ok(first.headers['webhook-signature'], 'signed');

  let deliveryId = '';
  await eventually(async () => {
    const [delivery] = await h.server.services.webhooks.deliveries(h.accountId, id);
    deliveryId = delivery?.id ?? '';
    return delivery?.status === 'delivered';
  });
  const page = await c.get(`/console/webhooks/${id}`);
  const row = rowOf(page.text, deliveryId);
  assert.match(row, /webhook\.test/);
  assert.match(row, /delivered/);
  assert.match(row, /HTTP 200 · \d+ ms/);
  assert.equal(row.match(/<li>/g)?.length, 1, 'one attempt');
  assert.match(row, new RegExp(`action="/console/webhooks/${id}/deliveries/${deliveryId}/redeliver"`));

  const again = await c.post(`/console/webhooks/${id}/deliveries/${deliveryId}/redeliver`);
  assert.equal(again.status, 303);
  assert.equal(again.location, `/console/webhooks/${id}?done=redelivered`);
  const received = await receiver.waitFor(2);
  assert.equal(received[1].headers['webhook-id'], first.headers['webhook-id'], 'the same event id');
  await eventually(async () => (await h.server.services.webhooks.deliveries(h.accountId, id))[0].attempts.length === 2);
  const after = rowOf((await c.get(`/console/webhooks/${id}`)).text, deliveryId);
  assert.equal(after.match(/<li>/g)?.length, 2, 'a second attempt is listed');
});

test('rotating the secret shows the new one once', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const { id, secret } = await addWebhook(c, { url: 'https://hooks.example/in' });
  const res = await c.post(`/console/webhooks/${id}/rotate-secret`);
  assert.equal(res.status, 200);
  const rotated = SECRET.exec(res.text)?.[1];
  assert.ok(rotated && rotated !== secret, 'a new secret');
  assert.equal((await h.request('GET', `/webhook/${id}`, { auth: h.token })).json.data.secret, rotated);
  const later = await c.get(`/console/webhooks/${id}`);
  assert.equal(later.text.includes(rotated), false);
});

test('deleting a webhook removes it', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const { id } = await addWebhook(c, { url: 'https://hooks.example/in' });
  const res = await c.post(`/console/webhooks/${id}/delete`);
  assert.equal(res.status, 303);
  assert.equal(res.location, '/console/webhooks?done=deleted');
  assert.equal((await h.request('GET', `/webhook/${id}`, { auth: h.token })).status, 404);
  const page = await c.get(res.location);
  assert.match(page.text, /The webhook was deleted/);
  assert.match(page.text, /No webhooks yet/, 'the empty state says what to do next');
  assert.equal((await c.get(`/console/webhooks/${id}`)).status, 404);
});

test('a webhook URL with markup in its query is shown as text', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const url = 'https://example.com/hook?q=<script>alert(1)</script>';
  const { id } = await addWebhook(c, { url });
  for (const path of ['/console/webhooks', `/console/webhooks/${id}`]) {
    const page = await c.get(path);
    assert.equal(page.text.includes('<script>alert(1)'), false, path);
    assert.ok(page.text.includes('q=&lt;script&gt;alert(1)&lt;/script&gt;'), path);
  }
});

test('a refused webhook form is shown again with the reason and what was typed', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const bad = await c.post('/console/webhooks', { url: 'ftp://hooks.example/in', events: ['task.failed'] });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /URL: an http or https URL/);
  assert.match(bad.text, /value="ftp:\/\/hooks.example\/in"/);
  assert.match(bad.text, /id="wh-event-task.failed" name="events" value="task.failed" checked/);
  const unknownKey = await c.post('/console/webhooks', { url: 'https://hooks.example/in', apiKeyIds: ['key_nope'] });
  assert.equal(unknownKey.status, 400);
  assert.match(unknownKey.text, /class="notice error"[\s\S]*WEBHOOK_API_KEY_NOT_FOUND/);
  assert.deepEqual((await h.request('GET', '/webhook', { auth: h.token })).json.data, [], 'nothing was created');
});

test("another account's webhook answers 404 on its page and every action", async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const theirs = await h.server.services.webhooks.create(other.id, { url: 'https://theirs.example/hook' });
  const delivery = await h.server.services.webhooks.sendTest(other.id, theirs.id);
  const c = await consoleSignIn(h);
  assert.equal((await c.get(`/console/webhooks/${theirs.id}`)).status, 404);
  for (const path of ['', '/test', '/rotate-secret', '/delete', `/deliveries/${delivery.id}/redeliver`]) {
    const res = await c.post(`/console/webhooks/${theirs.id}${path}`, { url: 'https://mine.example/hook' });
    assert.equal(res.status, 404, path);
    assert.match(res.text, /does not exist, or it is not yours/);
  }
  const mine = await addWebhook(c, { url: 'https://hooks.example/in' });
  assert.equal(
    (await c.post(`/console/webhooks/${mine.id}/deliveries/${delivery.id}/redeliver`)).status,
    404,
    "another account's delivery under my webhook",
  );
  const after = await h.server.services.webhooks.get(other.id, theirs.id);
  assert.equal(after.url, 'https://theirs.example/hook');
  assert.equal(after.secret, theirs.secret);
});

test('a cross-site post (a foreign Origin, or none) adds no webhook', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const foreign = await c.post(
    '/console/webhooks',
    { url: 'https://forged.example/hook' },
    { origin: 'https://evil.example' },
  );
  assert.equal(foreign.status, 401);
  const form = new URLSearchParams({ _csrf: c.csrf, url: 'https://forged.example/hook' });
  const none = await fetch(`${h.url}/console/webhooks`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  assert.equal(none.status, 401);
  assert.deepEqual((await h.request('GET', '/webhook', { auth: h.token })).json.data, []);
});
