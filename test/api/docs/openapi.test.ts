import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startService } from '../../helpers/harness.js';

const PACKAGE_VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;

test("GET /openapi.json is a valid OpenAPI 3.1 document labelled with the package's version", async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/openapi.json', { auth: null });
  assert.equal(res.status, 200);
  const result = await new Validator().validate(res.json);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.equal(res.json.openapi, '3.1.0');
  assert.equal(res.json.info.version, PACKAGE_VERSION);
});

test('every mounted route is described and every described route is mounted', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
  // The very routes hono dispatches, on the server's own app: all but the web console (HTML pages, not
  // the API) and the test route the harness adds.
  const mounted = h.server.api.routes
    .filter((r) => r.method !== 'ALL' && r.path !== '/test/tasks' && !r.path.startsWith('/console'))
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  assert.deepEqual([...new Set(mounted)].sort(), [...new Set(described)].sort());
  assert.equal(described.includes('POST /test/tasks'), false, "the tests' own route is not described");
});

/** A schema with its `$ref` followed into `components.schemas`. */
const deref = (doc: any, schema: any): any =>
  schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
/** The error codes an error answer lists: `{ allOf: [Error, { code: { enum } }] }`. */
const codes = (schema: any): string[] => {
  assert.deepEqual(schema.allOf[0], { $ref: '#/components/schemas/Error' });
  return schema.allOf[1].properties.code.enum;
};

test('routes carry their credentials, scopes, bodies from the validating schemas, answers and error codes', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const generate = doc.paths['/image/generate'].post;
  assert.deepEqual(generate.security, [{ apiKey: ['image:generate'] }]);
  assert.deepEqual(
    generate.requestBody.content['application/json'].schema.properties.model.enum,
    ['auto', 'placeholder'],
    'the configured model ids',
  );
  assert.equal(generate.requestBody.content['application/json'].schema.properties.count.maximum, 20);
  assert.deepEqual(
    deref(doc, generate.responses['400'].content['application/json'].schema.oneOf[0]).required.sort(),
    ['data', 'error', 'success'],
    'the image schema-rejection shape',
  );
  assert.deepEqual(codes(generate.responses['422'].content['application/json'].schema), ['INSUFFICIENT_BALANCE']);
  assert.deepEqual(codes(generate.responses['429'].content['application/json'].schema).sort(), [
    'RATE_LIMIT_EXCEEDED',
    'SPENDING_LIMIT_EXCEEDED',
  ]);
  assert.ok(generate.responses['413']);

  const status = doc.paths['/tasks/{id}/status'].get;
  assert.deepEqual(status.security, [{ apiKey: ['tasks:read'] }, { publicAccessToken: [] }]);
  assert.deepEqual(codes(status.responses['401'].content['application/json'].schema), [
    'UNAUTHORIZED',
    'INVALID_TOKEN',
    'TOKEN_EXPIRED',
  ]);
  assert.deepEqual(codes(status.responses['404'].content['application/json'].schema), ['TASK_NOT_FOUND']);

  const createKey = doc.paths['/api-key'].post;
  assert.deepEqual(createKey.security, [{ accessToken: ['keys'] }]);
  assert.deepEqual(codes(createKey.responses['403'].content['application/json'].schema).sort(), [
    'INSUFFICIENT_SCOPE',
    'SCOPE_ESCALATION',
  ]);
  assert.deepEqual(
    deref(doc, createKey.responses['400'].content['application/json'].schema.oneOf[0]).required.sort(),
    ['errors', 'success'],
    'the resource schema-rejection shape',
  );
  assert.ok(createKey.responses['201'].content['application/json'].schema.properties.data.properties.raw);

  const destination = doc.paths['/destinations/{id}'].get;
  assert.deepEqual(destination.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  assert.deepEqual(
    Object.keys(
      deref(doc, destination.responses['200'].content['application/json'].schema.properties.data).properties,
    ).sort(),
    ['config', 'createdAt', 'id', 'name', 'provider', 'updatedAt'],
  );
  assert.equal(
    codes(doc.paths['/destinations/{id}/test'].post.responses['502'].content['application/json'].schema)[0],
    'DESTINATION_TEST_FAILED',
  );
  assert.deepEqual(doc.paths['/health'].get.security, []);

  assert.deepEqual(Object.keys(doc.webhooks).sort(), [
    'billing.threshold_reached',
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
    'task.image.review.completed',
    'task.image.review.failed',
    'task.video.generate.completed',
    'task.video.generate.failed',
    'webhook.test',
  ]);
  for (const failed of doc.webhooks['task.failed'].post.requestBody.content['application/json'].schema.oneOf)
    assert.ok(deref(doc, failed).properties.data.properties.errors);
});
