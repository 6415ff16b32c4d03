// CORS: a browser page on another origin polling a task with its PAT, as docs/api/tasks.md documents.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { uploadImage } from '../../helpers/reload.js';

const APP = 'https://app.example.test';
const OTHER = 'https://evil.example.test';

/** What a browser sends before a cross-origin GET with an Authorization header. */
const preflight = (h: Harness, path: string, origin: string, method = 'GET', headers = 'authorization') =>
  h.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

/** A finished test task with its PAT. */
async function taskWithPat(h: Harness): Promise<{ taskId: string; pat: string }> {
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} });
  assert.equal(created.status, 201, created.text);
  const { taskId, access } = created.json.data;
  await waitForTask(h, taskId);
  return { taskId, pat: access.publicAccessToken };
}

test('with no cors.origins (the default) no answer carries CORS headers and OPTIONS is not answered', async (t) => {
  const h = await startService(t);
  const { taskId, pat } = await taskWithPat(h);
  const res = await h.request('GET', `/tasks/${taskId}/status`, { auth: pat, headers: { origin: APP } });
  assert.equal(res.status, 200);
  const corsHeaders = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
  assert.deepEqual(corsHeaders, []);
  const options = await preflight(h, `/tasks/${taskId}/status`, APP);
  assert.equal(options.status, 404);
  assert.equal(options.json.code, 'NOT_FOUND');
  assert.equal(options.headers.get('access-control-allow-origin'), null);
});

test('a listed origin gets its preflight answered 204 without credentials, then polls status, result and images with a PAT', async (t) => {
  const h = await startService(t, { config: { cors: { origins: [APP] } } });
  const { taskId, pat } = await taskWithPat(h);

  for (const path of [`/tasks/${taskId}`, `/tasks/${taskId}/status`, `/tasks/${taskId}/result`]) {
    const pre = await preflight(h, path, APP);
    assert.equal(pre.status, 204, `preflight of ${path}: ${pre.text}`);
    assert.equal(pre.text, '');
    assert.equal(pre.headers.get('access-control-allow-origin'), APP);
    assert.deepEqual(pre.headers.get('access-control-allow-methods')?.split(','), [
      'GET',
      'HEAD',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ]);
    assert.deepEqual(pre.headers.get('access-control-allow-headers')?.toLowerCase().split(','), [
      'authorization',
      'content-type',
      'idempotency-key',
      'last-event-id',
      'cancel-after',
    ]);
    assert.equal(pre.headers.get('access-control-max-age'), '600');
    assert.equal(pre.headers.get('access-control-allow-credentials'), null, 'bearer headers, not cookies');
    assert.match(pre.headers.get('vary') ?? '', /origin/i);
    assert.match(pre.headers.get('x-request-id') ?? '', /^req_/, 'the preflight is a request like any other');
  }

  const status = await h.request('GET', `/tasks/${taskId}/status`, { auth: pat, headers: { origin: APP } });
  assert.deepEqual(status.json, { data: { status: 'completed' } });
  assert.equal(status.headers.get('access-control-allow-origin'), APP);
  assert.deepEqual(status.headers.get('access-control-expose-headers')?.split(','), [
    'x-request-id',
    'retry-after',
    'idempotent-replayed',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'ratelimit-policy',
  ]);
  assert.match(status.headers.get('x-request-id') ?? '', /^req_/);
  assert.match(status.headers.get('vary') ?? '', /origin/i, 'caches keep answers to different origins apart');

  const result = await h.request('GET', `/tasks/${taskId}/result`, { auth: pat, headers: { origin: APP } });
  assert.equal(result.status, 200);
  assert.equal(result.headers.get('access-control-allow-origin'), APP);

  // Errors are readable cross-origin too: the page can show the code.
  const denied = await h.request('GET', `/tasks/${taskId}/status`, { auth: 'not-a-token', headers: { origin: APP } });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get('access-control-allow-origin'), APP);
  const missing = await h.request('GET', '/no/such/route', { headers: { origin: APP } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), APP);

  const image = await uploadImage(h);
  const served = await fetch(`${h.url}/images/${image.id}.${image.format}`, { headers: { origin: APP } });
  assert.equal(served.status, 200);
  assert.equal(served.headers.get('content-type'), 'image/png');
  assert.equal(served.headers.get('access-control-allow-origin'), APP);
  assert.ok((await served.arrayBuffer()).byteLength > 0);
});

test('an origin not listed gets no allow-origin header, on the preflight or the answer', async (t) => {
  const h = await startService(t, { config: { cors: { origins: [APP, 'http://localhost:5173'] } } });
  const { taskId, pat } = await taskWithPat(h);
  const pre = await preflight(h, `/tasks/${taskId}/status`, OTHER);
  assert.equal(pre.headers.get('access-control-allow-origin'), null);
  const res = await h.request('GET', `/tasks/${taskId}/status`, { auth: pat, headers: { origin: OTHER } });
  assert.equal(res.status, 200, 'the server answers; the browser keeps the answer from the page');
  assert.equal(res.headers.get('access-control-allow-origin'), null);
  const local = await h.request('GET', `/tasks/${taskId}/status`, {
    auth: pat,
    headers: { origin: 'http://localhost:5173' },
  });
  assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:5173');
});

test('cors.origins ["*"] allows any origin, and a POST preflight with JSON is allowed', async (t) => {
  const h = await startService(t, { config: { cors: { origins: ['*'] } } });
  const pre = await preflight(h, '/test/tasks', OTHER, 'POST', 'authorization,content-type');
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {}, headers: { origin: OTHER } });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('access-control-allow-origin'), '*');
});
