import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/api/json-depth.js';
import { routesOf } from '../../../src/api/route.js';
import { startService } from '../../helpers/harness.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('every JSON route answers 400 for a body nested past the bound, never 5xx', async (t) => {
  const h = await startService(t);
  const deep = nested(4100);
  const jsonRoutes = routesOf(h.server.api).filter((route) => route.body);
  assert.ok(jsonRoutes.length >= 10, 'the JSON routes are found');
  for (const route of jsonRoutes) {
    await t.test(`${route.method.toUpperCase()} ${route.path}`, async () => {
      const path = route.path.replace(/:\w+/g, 'x');
      const auth = route.guard?.accept.includes('apiKey') ? h.apiKey : h.token;
      for (const body of [`{"metadata":{"a":${deep}}}`, `{"events":${deep},"urls":${deep}}`, deep]) {
        const res = await h.request(route.method.toUpperCase(), path, { auth, body });
        assert.equal(res.status, 400, res.text.slice(0, 200));
        assert.deepEqual(res.json, {
          code: 'VALIDATION_ERROR',
          message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`,
        });
      }
    });
  }
});

test('a body at the bound is parsed as usual', async (t) => {
  const h = await startService(t);
  const metadata = `{"a":${nested(MAX_JSON_DEPTH - 2)}}`;
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: `{"prompt":"x","metadata":${metadata}}`,
  });
  assert.equal(res.status, 201, res.text);
});

test('depth counts brackets outside strings only, escapes included', () => {
  assert.equal(nestsDeeperThan('{"a":"[[[[[[[[[["}', 2), false);
  assert.equal(nestsDeeperThan('{"a":"\\"[[[[[[[[[["}', 2), false);
  assert.equal(nestsDeeperThan('{"a":[[1]]}', 2), true);
  assert.equal(nestsDeeperThan('{"a":[[1]]}', 3), false);
});
