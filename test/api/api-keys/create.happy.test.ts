import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_KEY_SCOPES } from '../../../src/domain/scopes.js';
import { startService } from '../../helpers/harness.js';
import { closeBeforeRemoval } from '../../helpers/temp-dir.js';

test('POST /api-key creates a key and answers the raw key once', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/api-key', {
    auth: h.token,
    body: {
      name: 'ci',
      scopes: ['image:generate', 'tasks:read'],
      spendingLimit: '25.5',
      spendingLimitPeriod: 'week',
      extra: 'dropped',
    },
  });
  assert.equal(res.status, 201);
  const { apiKey, raw } = res.json.data;
  assert.match(raw, /^mak_[0-9A-Za-z]{43}$/);
  assert.deepEqual(Object.keys(apiKey).sort(), [
    'createdAt',
    'id',
    'keyPreview',
    'maxConcurrent',
    'maxPriority',
    'name',
    'scopes',
    'spendingLimit',
    'spendingLimitPeriod',
    'userId',
  ]);
  assert.equal(apiKey.userId, h.accountId);
  assert.equal(apiKey.name, 'ci');
  assert.equal(apiKey.spendingLimit, '25.5');
  assert.equal(apiKey.spendingLimitPeriod, 'week');
  assert.equal(apiKey.maxConcurrent, null, 'no bound unless set');
  assert.equal(apiKey.maxPriority, 0, 'the default priority cap');
  assert.deepEqual(apiKey.scopes, ['image:generate', 'tasks:read']);
  assert.ok(raw.startsWith(apiKey.keyPreview.slice(0, 8)) && raw.endsWith(apiKey.keyPreview.slice(-4)));
  assert.match(apiKey.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const fetched = await h.request('GET', `/api-key/${apiKey.id}`, { auth: h.token });
  assert.equal(fetched.status, 200);
  assert.deepEqual(fetched.json.data, apiKey);
  assert.equal(JSON.stringify(fetched.json).includes(raw), false, 'the raw key is never answered again');
});

test('POST /api-key with {} or an empty body gives every API-key scope but the opt-in workflow:raw, and a monthly period', async (t) => {
  const h = await startService(t);
  for (const body of [{}, '']) {
    const res = await h.request('POST', '/api-key', { auth: h.token, body });
    assert.equal(res.status, 201);
    assert.deepEqual(
      res.json.data.apiKey.scopes,
      API_KEY_SCOPES.filter((scope) => scope !== 'workflow:raw'),
    );
    assert.equal(res.json.data.apiKey.spendingLimitPeriod, 'month');
    assert.equal('spendingLimit' in res.json.data.apiKey, false);
    assert.equal('name' in res.json.data.apiKey, false);
  }
});

test('keys are listed, deleted, and stop authenticating once deleted', async (t) => {
  const h = await startService(t);
  const created = (await h.request('POST', '/api-key', { auth: h.token, body: { name: 'temp' } })).json.data;
  const listed = await h.request('GET', '/api-key', { auth: h.token });
  assert.equal(listed.status, 200);
  assert.deepEqual(
    listed.json.data.map((k: { id: string }) => k.id),
    [h.keyId, created.apiKey.id],
  );

  // A live key authenticates: on a token-only route it is refused for scope, not identity.
  assert.equal((await h.request('GET', '/api-key', { auth: created.raw })).json.code, 'SCOPE_ESCALATION');

  const deleted = await h.request('DELETE', `/api-key/${created.apiKey.id}`, { auth: h.token });
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.json.data, { id: created.apiKey.id, deleted: true });

  const after = await h.request('GET', '/api-key', { auth: created.raw });
  assert.equal(after.status, 401);
  assert.equal(after.json.code, 'UNAUTHORIZED');
  assert.equal((await h.request('GET', `/api-key/${created.apiKey.id}`, { auth: h.token })).status, 404);
  assert.deepEqual(
    (await h.request('GET', '/api-key', { auth: h.token })).json.data.map((k: { id: string }) => k.id),
    [h.keyId],
  );
});

test('keys survive a restart of the server', async (t) => {
  const h = await startService(t);
  const created = (await h.request('POST', '/api-key', { auth: h.token, body: { name: 'durable' } })).json.data;
  await h.server.close();
  const { startServer } = await import('../../../src/app/server.js');
  const { deepMerge, loadConfig } = await import('../../../src/config/load.js');
  const again = await startServer({
    dataDir: h.dataDir,
    config: loadConfig({ env: {}, overrides: deepMerge({ server: { port: 0 } }, h.storeConfig) }),
  });
  closeBeforeRemoval(h.dataDir, () => again.close());
  const key = await again.services.apiKeys.resolve(created.raw);
  assert.equal(key?.id, created.apiKey.id);
  assert.equal(key?.name, 'durable');
});
