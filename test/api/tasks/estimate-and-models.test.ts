import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf, startService } from '../../helpers/harness.js';

test('POST /tasks/estimate answers what a create would reserve, without creating anything', async (t) => {
  const h = await startService(t);
  for (const auth of [h.apiKey, h.token]) {
    const res = await h.request('POST', '/tasks/estimate', {
      auth,
      body: { type: 'test.echo', request: { items: 3, price: '0.0002' } },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data, {
      type: 'test.echo',
      estimatedCost: '0.0006',
      items: ['0.0002', '0.0002', '0.0002'],
      currency: 'USD',
    });
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, []);
  assert.equal((await accountOf(h)).reserved, '0');
});

test("the estimate refuses an unknown type, an invalid request and a credential without the type's scope", async (t) => {
  const h = await startService(t);
  const unknown = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.nothing', request: {} },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'VALIDATION_ERROR');
  const invalid = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'test.echo', request: { items: 50 } },
  });
  assert.equal(invalid.status, 400);
  assert.deepEqual(invalid.json.errors[0].path, ['request', 'items']);
  const narrow = await h.server.services.apiKeys.create({ accountId: h.accountId, scopes: ['tasks:read'] });
  const scoped = await h.request('POST', '/tasks/estimate', {
    auth: narrow.raw,
    body: { type: 'test.echo', request: {} },
  });
  assert.equal(scoped.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(scoped.json.scopes.required, ['image:generate']);
});

test('GET /models lists the configured models with prices and capabilities', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/models', { auth: h.apiKey });
  assert.equal(res.status, 200);
  const placeholder = res.json.data.find((model: { id: string }) => model.id === 'placeholder');
  assert.equal(placeholder.default, true);
  assert.deepEqual(placeholder.price, { perImage: '0.001', perInput: '0.0005', perImage4k: '0.002' });
  assert.equal(placeholder.capabilities.supports4k, true);
  assert.equal((await h.request('GET', '/models', { auth: null })).status, 401);
});
