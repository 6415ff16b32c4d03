// The level of each access line: only a server fault is an `error`, and it is one line, with
// the error's stack; a client's error is an `info`, a refused credential a `warn`; a deliberate
// 503 a `warn`, /ready's an `info`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/domain/errors.js';
import { eventually, send } from '../../helpers/harness.js';
import { startLoggedServer } from '../../helpers/logged-server.js';

test('access lines: 5xx faults at error with their stack in the one line, deliberate 503 at warn, /ready 503 at info, 401 and 403 at warn, other 4xx at info', async (t) => {
  const { server, apiKey, lines, written } = await startLoggedServer(t, {
    extendApi: (app) => {
      app.get('/test/fault', () => {
        throw new Error('the test route broke');
      });
      app.get('/test/busy', () => {
        throw new AppError('NOT_READY', 'busy for the test');
      });
    },
  });
  const { url } = server;
  const fault = await send(url, 'GET', '/test/fault');
  assert.equal(fault.status, 500);
  assert.equal((await send(url, 'GET', '/test/busy')).status, 503);
  assert.equal((await send(url, 'POST', '/test/tasks', { auth: apiKey, body: { items: 'many' } })).status, 400);
  assert.equal((await send(url, 'GET', '/tasks/tsk_missing', { auth: apiKey })).status, 404);
  assert.equal((await send(url, 'GET', '/tasks/tsk_missing', { auth: 'sk_wrong' })).status, 401);
  assert.equal((await send(url, 'GET', '/usage', { auth: apiKey })).status, 403, 'an API key on an access-token route');
  // Last, as the store is closed for it: /ready then answers 503 naming the store, as it does while the models warm up.
  await server.services.store.close();
  assert.equal((await send(url, 'GET', '/ready')).status, 503);

  await eventually(() => lines().filter((l) => l.event === 'http.request').length === 7);
  const access = lines().filter((l) => l.event === 'http.request');
  assert.deepEqual(
    access.map((l) => `${l.level} ${l.method} ${l.route} ${l.status}`),
    [
      'error GET /test/fault 500',
      'warn GET /test/busy 503',
      'info POST /test/tasks 400',
      'info GET /tasks/:id 404',
      'warn GET /tasks/:id 401',
      'warn GET /usage 403',
      'info GET /ready 503',
    ],
  );
  const faultLine = access[0];
  assert.equal(faultLine.requestId, fault.headers.get('x-request-id'));
  assert.equal(faultLine.err.message, 'the test route broke');
  assert.match(faultLine.err.stack, /^Error: the test route broke\n\s+at /, 'the stack is in the access line');
  assert.ok(access.slice(1).every((l) => l.err === undefined));
  assert.equal(
    written().split('the test route broke').length - 1,
    2,
    'the fault is logged once (its message and its stack), in the access line only',
  );
  assert.deepEqual(
    lines()
      .filter((l) => l.level === 'error')
      .map((l) => l.event),
    ['http.request'],
    'the only error line is the fault',
  );
});
