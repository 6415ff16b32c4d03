import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService, waitForTask } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

/**
 * `metadata` is data, answered exactly as sent. JSON.parse keeps a `"__proto__"` key as an own
 * property, but copying it into an object by assignment (zod's record does) sets the prototype
 * instead and the key is gone: such a key is refused, at any depth, naming its path. The bodies
 * are sent as JSON text: a `__proto__` key in an object literal would not be one.
 */
const IMAGE = 'https://images.example/a.png';
const ROUTES: Array<[string, string]> = [
  ['/image/generate', '"prompt":"a cat"'],
  ['/video/generate', '"prompt":"a fox"'],
  ['/image/review', `"url":"${IMAGE}"`],
  ['/image/remove-background', `"url":"${IMAGE}"`],
];
const HOSTILE: Array<[string, (string | number)[]]> = [
  ['{"__proto__":{"isAdmin":true}}', ['metadata', '__proto__']],
  ['{"order":7,"__proto__":"x"}', ['metadata', '__proto__']],
  ['{"a":{"b":[1,{"__proto__":{"polluted":1}}]}}', ['metadata', 'a', 'b', 1, '__proto__']],
];

test('metadata with a "__proto__" key, at any depth, is refused with 400 naming its path, on every route that takes metadata', async (t) => {
  const h = await startService(t);
  for (const [path, fields] of ROUTES) {
    for (const [metadata, issuePath] of HOSTILE) {
      const text = `{${fields},"metadata":${metadata}}`;
      const res = await h.request('POST', path, { auth: h.apiKey, body: text });
      assert.equal(res.status, 400, `${path} ${metadata}: ${res.text}`);
      assert.equal(res.json.success, false);
      assert.deepEqual(res.json.data, JSON.parse(text), 'the body is echoed, the key included');
      assert.deepEqual(
        res.json.error.map((issue: { path: unknown }) => issue.path),
        [issuePath],
        `${path} ${metadata}`,
      );
      assert.match(res.json.error[0].message, /"__proto__"/);
    }
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, [], 'nothing was created');
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined, 'and nothing polluted');
});

test('keys that merely name Object members are data: kept and answered unchanged by GET, the list filter and webhooks', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true } } });
  const metadata = {
    constructor: { prototype: { x: 1 } },
    toString: 'tag',
    hasOwnProperty: null,
    valueOf: [1, { isPrototypeOf: 2 }],
    '': 'empty key',
    order: 7,
  };
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a cat', metadata, webhook: { custom: [{ url: receiver.url('/hook') }] } },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.status, 'completed');
  assert.deepEqual(task.metadata, metadata);
  const listed = await h.request('GET', '/tasks?metadata.toString=tag&metadata.order=7', { auth: h.apiKey });
  assert.deepEqual(
    listed.json.data.map((item: { id: string }) => item.id),
    [task.id],
  );
  assert.deepEqual((await h.request('GET', '/tasks?metadata.constructor=x', { auth: h.apiKey })).json.data, []);
  const [event] = await receiver.waitFor(1);
  assert.deepEqual(event.json.data.metadata, metadata);
});
