import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { serve } from '@hono/node-server';
import type { ApiDeps } from '../../../src/api/api-deps.js';
import { createApi } from '../../../src/api/app.js';
import { send, startService } from '../../helpers/harness.js';

test('an unknown route is 404 NOT_FOUND with the flat body', async (t) => {
  const h = await startService(t);
  for (const [method, path] of [
    ['GET', '/nope'],
    ['POST', '/v1/image/generate'],
    ['PUT', '/api-key'],
  ]) {
    const res = await h.request(method, path, { auth: h.token });
    assert.equal(res.status, 404);
    assert.equal(res.json.code, 'NOT_FOUND');
    assert.equal(typeof res.json.message, 'string');
  }
});

test('a fault is 500 INTERNAL_SERVER_ERROR with a request id, logged, and no internals in the body', async (t) => {
  const h = await startService(t);
  const lines: Array<{ level: string; fields: Record<string, any> }> = [];
  const deps = h.server.services.api;
  const line = (level: string) => (fields: object) => lines.push({ level, fields: fields as Record<string, any> });
  const broken: ApiDeps = {
    ...deps,
    ops: { ...deps.ops, accessLog: { info: line('info'), warn: line('warn'), error: line('error') } },
    apiKeys: {
      ...deps.apiKeys,
      list: async () => {
        throw new Error('secret database path /var/lib/x');
      },
    },
  };
  const api = createApi(broken);
  const server = serve({ fetch: api.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const res = await send(url, 'GET', '/api-key', { auth: h.token });
  assert.equal(res.status, 500);
  assert.equal(res.json.code, 'INTERNAL_SERVER_ERROR');
  assert.doesNotMatch(res.text, /secret database path|at .*\.ts/);
  const requestId = res.headers.get('x-request-id');
  assert.ok(requestId && res.json.message.includes(requestId));
  // Logged once, in the request's access line, with its stack.
  assert.equal(lines.length, 1);
  assert.equal(lines[0].level, 'error');
  assert.equal(lines[0].fields.requestId, requestId);
  assert.match(lines[0].fields.err.stack, /^Error: secret database path/);
});

test('health answers without credentials', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/health', { auth: null });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { data: { status: 'ok' } });
});
