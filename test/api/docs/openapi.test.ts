import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApi } from '../../../src/api/app.js';
import type { ApiDeps } from '../../../src/api/types.js';
import { startService } from '../../helpers/harness.js';

test('GET /openapi.json is a valid OpenAPI 3.1 document labelled 1.0.0', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/openapi.json', { auth: null });
  assert.equal(res.status, 200);
  const result = await new Validator().validate(res.json);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.equal(res.json.openapi, '3.1.0');
  assert.equal(res.json.info.version, '1.0.0');
});

test('every mounted route is described and every described route is mounted', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
  // The very routes hono dispatches, on an app built as the server builds it.
  const app = createApi(h.server.services as unknown as ApiDeps);
  const mounted = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  assert.deepEqual([...new Set(mounted)].sort(), [...new Set(described)].sort());
  assert.equal(described.includes('POST /test/tasks'), false, "the tests' own route is not described");
});

test('routes carry their credentials, scopes, bodies from the validating schemas, answers and error codes', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const generate = doc.paths['/image/generate'].post;
  assert.deepEqual(generate.security, [{ apiKey: ['image:generate'] }]);
  assert.deepEqual(generate.requestBody.content['application/json'].schema.properties.model.enum, ['auto', 'placeholder'], 'the configured model ids');
  assert.equal(generate.requestBody.content['application/json'].schema.properties.count.maximum, 20);
  assert.deepEqual(generate.responses['400'].content['application/json'].schema.oneOf[0].required.sort(), ['data', 'error', 'success'], 'the image schema-rejection shape');
  assert.deepEqual(generate.responses['422'].content['application/json'].schema.properties.code.enum, ['INSUFFICIENT_BALANCE']);
  assert.deepEqual(generate.responses['429'].content['application/json'].schema.properties.code.enum.sort(), ['RATE_LIMIT_EXCEEDED', 'SPENDING_LIMIT_EXCEEDED']);
  assert.ok(generate.responses['413']);

  const status = doc.paths['/tasks/{id}/status'].get;
  assert.deepEqual(status.security, [{ apiKey: ['tasks:read'] }, { publicAccessToken: [] }]);
  assert.deepEqual(status.responses['401'].content['application/json'].schema.properties.code.enum, ['UNAUTHORIZED', 'INVALID_TOKEN', 'TOKEN_EXPIRED']);
  assert.deepEqual(status.responses['404'].content['application/json'].schema.properties.code.enum, ['TASK_NOT_FOUND']);

  const createKey = doc.paths['/api-key'].post;
  assert.deepEqual(createKey.security, [{ accessToken: ['keys'] }]);
  assert.deepEqual(createKey.responses['403'].content['application/json'].schema.properties.code.enum.sort(), ['INSUFFICIENT_SCOPE', 'SCOPE_ESCALATION']);
  assert.deepEqual(createKey.responses['400'].content['application/json'].schema.oneOf[0].required.sort(), ['errors', 'success'], 'the resource schema-rejection shape');
  assert.ok(createKey.responses['201'].content['application/json'].schema.properties.data.properties.raw);

  const destination = doc.paths['/destinations/{id}'].get;
  assert.deepEqual(destination.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  assert.deepEqual(Object.keys(destination.responses['200'].content['application/json'].schema.properties.data.properties).sort(), ['config', 'createdAt', 'id', 'name', 'provider', 'updatedAt']);
  assert.equal(doc.paths['/destinations/{id}/test'].post.responses['502'].content['application/json'].schema.properties.code.enum[0], 'DESTINATION_TEST_FAILED');
  assert.deepEqual(doc.paths['/health'].get.security, []);

  assert.deepEqual(Object.keys(doc.webhooks).sort(), [
    'task.completed',
    'task.failed',
    'task.image.alt.completed',
    'task.image.alt.failed',
    'task.image.generate.completed',
    'task.image.generate.failed',
    'task.image.rate.completed',
    'task.image.rate.failed',
    'task.image.remove_background.completed',
    'task.image.remove_background.failed',
  ]);
  assert.ok(doc.webhooks['task.failed'].post.requestBody.content['application/json'].schema.properties.data.properties.errors);
});

test('GET /docs is a self-contained HTML reference rendered from the description', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/docs', { auth: null });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.doesNotMatch(res.text, /<script/i, 'no script');
  assert.doesNotMatch(res.text, /(src|href)="https?:/i, 'nothing loaded from elsewhere');
  const doc = (await h.request('GET', '/openapi.json')).json;
  for (const path of Object.keys(doc.paths)) assert.ok(res.text.includes(`<code>${path.replace(/&/g, '&amp;')}</code>`), path);
  assert.match(res.text, /task\.image\.generate\.completed/);
  assert.match(res.text, /imgtask <small>1\.0\.0<\/small>/);
});
