import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService } from '../../helpers/harness.js';

test('POST /webhook answers 201 with exactly the resource fields and a whsec_ secret', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/webhook', {
    auth: h.token,
    body: {
      url: 'https://hooks.example/in',
      events: ['task.completed', 'task.image.generate.failed'],
      apiKeyIds: [h.keyId],
    },
  });
  assert.equal(res.status, 201);
  const webhook = res.json.data;
  assert.deepEqual(Object.keys(webhook), [
    'id',
    'userId',
    'url',
    'enabled',
    'events',
    'secret',
    'createdAt',
    'updatedAt',
  ]);
  assert.equal(webhook.userId, h.accountId);
  assert.equal(webhook.enabled, true);
  assert.deepEqual(webhook.events, ['task.completed', 'task.image.generate.failed']);
  assert.match(webhook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  const defaults = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'http://hooks.example/all' } }))
    .json.data;
  assert.equal(defaults.events, null, 'no events given: every kind');
});

test('webhooks are read, listed, updated, re-keyed and deleted; an unknown id is 404 WEBHOOK_NOT_FOUND', async (t) => {
  const h = await startService(t);
  const created = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://hooks.example/a' } }))
    .json.data;
  assert.deepEqual((await h.request('GET', `/webhook/${created.id}`, { auth: h.token })).json.data, created);
  assert.deepEqual(
    (await h.request('GET', '/webhook', { auth: h.token })).json.data.map((w: { id: string }) => w.id),
    [created.id],
  );

  const updated = await h.request('PATCH', `/webhook/${created.id}`, {
    auth: h.token,
    body: { enabled: false, url: 'https://hooks.example/b', events: ['all'], apiKeyIds: [h.keyId] },
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.json.data.enabled, false);
  assert.equal(updated.json.data.url, 'https://hooks.example/b');
  assert.deepEqual(updated.json.data.events, ['all']);
  assert.equal(updated.json.data.secret, created.secret);

  const rotated = (await h.request('POST', `/webhook/${created.id}/rotate-secret`, { auth: h.token })).json.data;
  assert.notEqual(rotated.secret, created.secret);
  assert.match(rotated.secret, /^whsec_/);

  assert.deepEqual((await h.request('DELETE', `/webhook/${created.id}`, { auth: h.token })).json.data, {
    id: created.id,
    deleted: true,
  });
  for (const [method, path, body] of [
    ['GET', `/webhook/${created.id}`],
    ['PATCH', `/webhook/${created.id}`, { enabled: true }],
    ['DELETE', `/webhook/${created.id}`],
    ['POST', `/webhook/${created.id}/rotate-secret`],
    ['POST', `/webhook/${created.id}/test`],
    ['GET', `/webhook/${created.id}/deliveries`],
    ['POST', '/webhook/deliveries/dlv_nope/redeliver'],
  ] as const) {
    const res = await h.request(method, path, { auth: h.token, body });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal(res.json.code, 'WEBHOOK_NOT_FOUND');
  }
});

test("another account's webhook is not found; apiKeyIds must be the account's live keys", async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const otherKey = await h.server.services.apiKeys.create({ accountId: other.id });
  const otherToken = (await h.server.services.tokens.issueAccessToken(other.id, ['manage'], 60_000)).accessToken;
  const mine = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://hooks.example/a' } })).json
    .data;
  assert.equal((await h.request('GET', `/webhook/${mine.id}`, { auth: otherToken })).json.code, 'WEBHOOK_NOT_FOUND');
  assert.deepEqual((await h.request('GET', '/webhook', { auth: otherToken })).json.data, []);

  for (const apiKeyIds of [['key_unknown'], [otherKey.apiKey.id], [h.keyId, 'key_unknown']]) {
    const res = await h.request('POST', '/webhook', {
      auth: h.token,
      body: { url: 'https://hooks.example/x', apiKeyIds },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, 'WEBHOOK_API_KEY_NOT_FOUND');
    const patched = await h.request('PATCH', `/webhook/${mine.id}`, { auth: h.token, body: { apiKeyIds } });
    assert.equal(patched.json.code, 'WEBHOOK_API_KEY_NOT_FOUND');
  }
});

test('bad webhook bodies are schema rejections in the { success: false, errors } shape', async (t) => {
  const h = await startService(t);
  for (const [body, path] of [
    [{}, ['url']],
    [{ url: 'ftp://hooks.example/x' }, ['url']],
    [{ url: 'not a url' }, ['url']],
    [{ url: 'https://h.example', events: ['task.exploded'] }, ['events', 0]],
    [{ url: 'https://h.example', events: [] }, ['events']],
    [{ url: 'https://h.example', apiKeyIds: 'key_1' }, ['apiKeyIds']],
  ] as const) {
    const res = await h.request('POST', '/webhook', { auth: h.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual(Object.keys(res.json), ['success', 'errors']);
    assert.deepEqual(res.json.errors[0].path, path);
  }
  const patch = await h.request('PATCH', '/webhook/wh_x', { auth: h.token, body: { enabled: 'yes' } });
  assert.equal(patch.status, 400);
  assert.equal(patch.json.success, false);
});

test('webhook routes take an access token with manage: an API key is SCOPE_ESCALATION', async (t) => {
  const h = await startService(t);
  const key = await h.request('POST', '/webhook', { auth: h.apiKey, body: { url: 'https://hooks.example/a' } });
  assert.equal(key.status, 403);
  assert.equal(key.json.code, 'SCOPE_ESCALATION');
  assert.deepEqual(key.json.scopes.requested, ['manage']);
  const keysOnly = (await h.server.services.tokens.issueAccessToken(h.accountId, ['keys'], 60_000)).accessToken;
  const scoped = await h.request('GET', '/webhook', { auth: keysOnly });
  assert.equal(scoped.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(scoped.json.scopes.required, ['manage']);
});
