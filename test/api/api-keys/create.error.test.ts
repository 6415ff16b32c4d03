import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService } from '../../helpers/harness.js';

test('schema rejections on /api-key use the { success: false, errors } shape with full issues', async (t) => {
  const h = await startService(t);
  const cases: Array<[string, unknown, { path: unknown[]; code: string; expected: string; actual: string }]> = [
    [
      'a name of the wrong type',
      { name: 5 },
      { path: ['name'], code: 'invalid_type', expected: 'string', actual: 'number' },
    ],
    [
      'an empty name',
      { name: '' },
      { path: ['name'], code: 'too_small', expected: 'string of length >= 1', actual: 'string of length 0' },
    ],
    [
      'an unknown scope',
      { scopes: ['image:everything'] },
      { path: ['scopes', 0], code: 'invalid_value', expected: '', actual: '"image:everything"' },
    ],
    [
      'an unknown period',
      { spendingLimitPeriod: 'year' },
      { path: ['spendingLimitPeriod'], code: 'invalid_value', expected: '"day" | "week" | "month"', actual: '"year"' },
    ],
    [
      'a spending limit that is not an amount',
      { spendingLimit: '-3' },
      { path: ['spendingLimit'], code: 'custom', expected: 'a valid value', actual: '"-3"' },
    ],
  ];
  for (const [name, body, expected] of cases) {
    await t.test(`rejects ${name}`, async () => {
      const res = await h.request('POST', '/api-key', { auth: h.token, body });
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.json), ['success', 'errors']);
      assert.equal(res.json.success, false);
      const [issue] = res.json.errors;
      assert.deepEqual(Object.keys(issue).sort(), ['actual', 'code', 'expected', 'message', 'path']);
      assert.deepEqual(issue.path, expected.path);
      assert.equal(issue.code, expected.code);
      if (expected.expected) assert.equal(issue.expected, expected.expected);
      assert.equal(issue.actual, expected.actual);
      assert.equal(typeof issue.message, 'string');
    });
  }
});

test('a body that is not JSON gets the plain-text 400', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/api-key', { auth: h.token, body: '{"name": ' });
  assert.equal(res.status, 400);
  assert.equal(res.text, 'Malformed JSON in request body');
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
});

test('asking for the scope manage or keys is SCOPE_ESCALATION with requested and allowed', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/api-key', {
    auth: h.token,
    body: { scopes: ['tasks:read', 'keys', 'manage'] },
  });
  assert.equal(res.status, 403);
  assert.equal(res.json.code, 'SCOPE_ESCALATION');
  assert.deepEqual(res.json.scopes.requested, ['keys', 'manage']);
  assert.ok(res.json.scopes.allowed.includes('image:generate'));
  assert.equal(res.json.scopes.allowed.includes('manage'), false);
});

test('the 101st live key is API_KEY_LIMIT_REACHED, and deleting one frees a place', async (t) => {
  const h = await startService(t);
  // The harness made one key already; make 99 more in parallel.
  const made = await Promise.all(
    Array.from({ length: 99 }, () => h.request('POST', '/api-key', { auth: h.token, body: {} })),
  );
  assert.ok(made.every((res) => res.status === 201));
  const over = await h.request('POST', '/api-key', { auth: h.token, body: {} });
  assert.equal(over.status, 400);
  assert.equal(over.json.code, 'API_KEY_LIMIT_REACHED');
  assert.equal(typeof over.json.message, 'string');

  await h.request('DELETE', `/api-key/${made[0].json.data.apiKey.id}`, { auth: h.token });
  assert.equal((await h.request('POST', '/api-key', { auth: h.token, body: {} })).status, 201);
});

test('parallel creates past the limit stop at exactly 100 live keys', async (t) => {
  const h = await startService(t);
  const results = await Promise.all(
    Array.from({ length: 150 }, () => h.request('POST', '/api-key', { auth: h.token, body: {} })),
  );
  assert.equal(results.filter((res) => res.status === 201).length, 99);
  assert.ok(results.filter((res) => res.status !== 201).every((res) => res.json.code === 'API_KEY_LIMIT_REACHED'));
  assert.equal((await h.request('GET', '/api-key', { auth: h.token })).json.data.length, 100);
});

test('an unknown or foreign key id is 404 API_KEY_NOT_FOUND without a message', async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const foreign = await h.server.services.apiKeys.create({ accountId: other.id });
  for (const id of ['key_nope', foreign.apiKey.id]) {
    for (const method of ['GET', 'DELETE']) {
      const res = await h.request(method, `/api-key/${id}`, { auth: h.token });
      assert.equal(res.status, 404);
      assert.deepEqual(res.json, { code: 'API_KEY_NOT_FOUND' });
    }
  }
  assert.ok(await h.server.services.apiKeys.resolve(foreign.raw), "the other account's key was not deleted");
});

test('a body over the bound is 413 before it is parsed', async (t) => {
  const h = await startService(t, { config: { server: { bodyLimitBytes: 4096 } } });
  const res = await h.request('POST', '/api-key', { auth: h.token, body: { name: 'x'.repeat(10_000) } });
  assert.equal(res.status, 413);
  assert.equal(res.json.code, 'VALIDATION_ERROR');
});

test('a chunked body (no Content-Length) is cut off at the bound with 413', async (t) => {
  const h = await startService(t, { config: { server: { bodyLimitBytes: 4096 } } });
  const chunk = new TextEncoder().encode(`{"name":"${'x'.repeat(1000)}`);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 50) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const res = await fetch(`${h.url}/api-key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.token}` },
    body,
    duplex: 'half',
  } as RequestInit);
  assert.equal(res.status, 413);
  assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_ERROR');
});

test('a key never holds a scope its creator lacks: more is SCOPE_ESCALATION, none given is the intersection', async (t) => {
  const h = await startService(t);
  const { accessToken: rateOnly } = await h.server.services.tokens.issueAccessToken(
    h.accountId,
    ['keys', 'image:rate'],
    60_000,
  );

  const wider = await h.request('POST', '/api-key', {
    auth: rateOnly,
    body: { scopes: ['image:rate', 'image:generate', 'tasks:read'] },
  });
  assert.equal(wider.status, 403);
  assert.deepEqual(wider.json.scopes, { requested: ['image:generate', 'tasks:read'], allowed: ['image:rate'] });
  assert.equal(wider.json.code, 'SCOPE_ESCALATION');
  assert.match(wider.json.message, /requested scopes exceed the caller's: image:generate, tasks:read/);

  const byDefault = await h.request('POST', '/api-key', { auth: rateOnly, body: {} });
  assert.equal(byDefault.status, 201, byDefault.text);
  assert.deepEqual(byDefault.json.data.apiKey.scopes, ['image:rate'], 'the intersection, never more');
  const named = await h.request('POST', '/api-key', { auth: rateOnly, body: { scopes: ['image:rate'] } });
  assert.deepEqual(named.json.data.apiKey.scopes, ['image:rate']);

  const { accessToken: keysOnly } = await h.server.services.tokens.issueAccessToken(h.accountId, ['keys'], 60_000);
  const nothingToGrant = await h.request('POST', '/api-key', { auth: keysOnly, body: {} });
  assert.equal(nothingToGrant.status, 400);
  assert.equal(nothingToGrant.json.code, 'VALIDATION_ERROR');
  const anyScope = await h.request('POST', '/api-key', { auth: keysOnly, body: { scopes: ['image:generate'] } });
  assert.deepEqual([anyScope.status, anyScope.json.code, anyScope.json.scopes.allowed], [403, 'SCOPE_ESCALATION', []]);
});
