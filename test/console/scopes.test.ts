import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService } from '../helpers/harness.js';

/** Signs in by pasting an access token holding only `scopes`; answers a client of that session. */
async function tokenSession(h: Harness, scopes: string[]) {
  const { accessToken } = await h.server.services.tokens.issueAccessToken(h.accountId, scopes, 600_000);
  const res = await fetch(`${h.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(h.url).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: accessToken }).toString(),
  });
  assert.equal(res.status, 303);
  return consoleClient(h, /imgtask_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]);
}

const taskCount = async (h: Harness) =>
  (await h.request('GET', '/tasks?limit=100', { auth: h.apiKey })).json.data.length;

test('a session from a narrow access token can do no more than the token: no task as a key without the type’s scope', async (t) => {
  const h = await startService(t);
  const reader = await tokenSession(h, ['tasks:read']);
  await reader.get('/console/playground');
  const made = await reader.post('/console/playground/image.generate', { key: h.keyId, prompt: 'a fox' });
  assert.equal(made.status, 403);
  assert.match(made.text, /INSUFFICIENT_SCOPE/);
  const estimate = await fetch(`${h.url}/console/playground/image.generate/estimate`, {
    method: 'POST',
    headers: {
      cookie: `imgtask_console=${reader.cookie}`,
      origin: new URL(h.url).origin,
      'content-type': 'application/json',
      'x-csrf-token': reader.csrf,
    },
    body: JSON.stringify({ key: h.keyId, prompt: 'a fox' }),
  });
  assert.equal(((await estimate.json()) as { error: { code: string } }).error.code, 'INSUFFICIENT_SCOPE');
  assert.equal(await taskCount(h), 0, 'nothing made');

  const maker = await tokenSession(h, ['image:generate', 'tasks:read']);
  await maker.get('/console/playground');
  const ok = await maker.post('/console/playground/image.generate', { key: h.keyId, prompt: 'a fox' });
  assert.equal(ok.status, 303, 'with the scope, the same post makes the task');
  assert.equal(await taskCount(h), 1);
});

test('tasks, the gallery and thumbnails need tasks:read, as GET /tasks does', async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a private prompt' } });
  const id = created.json.data.taskId;
  const manager = await tokenSession(h, ['manage']);
  for (const path of [
    '/console/tasks',
    `/console/tasks/${id}`,
    '/console/tasks/rows',
    '/console/gallery',
    `/console/gallery/${id}/0`,
    `/console/thumbs/${id}/0?w=320`,
  ]) {
    const res = await manager.get(path);
    assert.equal(res.status, 403, path);
    assert.doesNotMatch(res.text, /a private prompt/, `${path} shows nothing of the task`);
  }
  const again = await manager.post(`/console/tasks/${id}/again`, { keyId: h.keyId });
  assert.equal(again.status, 403, 'run again reads the task: refused too');
  assert.equal((await manager.get('/console/webhooks')).status, 200, 'what the token may do, it does');
});

test('signing in again over a live session takes no form token and ends the old session', async (t) => {
  const h = await startService(t);
  const first = await consoleSignIn(h);
  const res = await fetch(`${h.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: `imgtask_console=${first.cookie}`,
      origin: new URL(h.url).origin,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token: h.token }).toString(),
  });
  assert.equal(res.status, 303);
  const second = consoleClient(h, /imgtask_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]);
  assert.equal((await second.get('/console')).status, 200);
  assert.equal((await first.get('/console')).status, 303, 'the old session ended');
  const foreign = await fetch(`${h.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: `imgtask_console=${second.cookie}`,
      origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token: h.token }).toString(),
  });
  assert.equal(foreign.status, 401, 'another site still cannot sign this browser in');
  assert.equal((await second.get('/console')).status, 200);
});
