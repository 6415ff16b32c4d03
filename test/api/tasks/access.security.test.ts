import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRejectsMissingCredentials } from '../../helpers/common-auth.js';
import { startService, waitForTask } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

test('task routes refuse missing and unknown credentials', async (t) => {
  const h = await startService(t);
  const { taskId } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  for (const path of [`/tasks/${taskId}`, `/tasks/${taskId}/status`, `/tasks/${taskId}/result`, '/tasks']) {
    await assertRejectsMissingCredentials(t, h, { method: 'GET', path });
  }
  await assertRejectsMissingCredentials(t, h, { method: 'POST', path: '/test/tasks', body: {} });
});

test('a PAT reads status and result of its own task only', async (t) => {
  const h = await startService(t);
  const mine = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  const other = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  await waitForTask(h, mine.taskId);
  const pat = mine.access.publicAccessToken;

  assert.deepEqual((await h.request('GET', `/tasks/${mine.taskId}/status`, { auth: pat })).json, {
    data: { status: 'completed' },
  });
  assert.equal((await h.request('GET', `/tasks/${mine.taskId}/result`, { auth: pat })).json.data.id, mine.taskId);

  for (const path of [
    `/tasks/${other.taskId}`,
    `/tasks/${other.taskId}/status`,
    `/tasks/${other.taskId}/result`,
    '/tasks/tsk_unknown',
  ]) {
    const res = await h.request('GET', path, { auth: pat });
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, { code: 'TASK_NOT_FOUND' });
  }
});

test('a PAT is refused on GET /tasks/{id}, on the listing and on creation', async (t) => {
  const h = await startService(t);
  const { taskId, access } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  for (const [method, path] of [
    ['GET', `/tasks/${taskId}`],
    ['GET', '/tasks'],
    ['POST', '/test/tasks'],
  ]) {
    const res = await h.request(method, path, {
      auth: access.publicAccessToken,
      body: method === 'POST' ? {} : undefined,
    });
    assert.equal(res.status, 401, `${method} ${path}`);
    assert.equal(res.json.code, 'UNAUTHORIZED');
  }
  assert.equal((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data.length, 1, 'the PAT created nothing');
});

test('a PAT expires after one hour (TOKEN_EXPIRED); a forged one is INVALID_TOKEN', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const { taskId, access } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  clock.advance(59 * 60 * 1000);
  assert.equal((await h.request('GET', `/tasks/${taskId}/status`, { auth: access.publicAccessToken })).status, 200);
  clock.advance(2 * 60 * 1000);
  const expired = await h.request('GET', `/tasks/${taskId}/status`, { auth: access.publicAccessToken });
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.json, { code: 'TOKEN_EXPIRED' });
  const forged = await h.request('GET', `/tasks/${taskId}/status`, {
    auth: `${access.publicAccessToken.slice(0, -3)}xyz`,
  });
  assert.deepEqual(forged.json, { code: 'INVALID_TOKEN' });
});

test("another account's task and an unknown task are both 404 TASK_NOT_FOUND without a message", async (t) => {
  const h = await startService(t);
  const { taskId } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  const stranger = await h.server.services.accounts.create('stranger', 1_000_000);
  const strangerKey = (await h.server.services.apiKeys.create({ accountId: stranger.id })).raw;
  for (const id of [taskId, 'tsk_unknown']) {
    for (const suffix of ['', '/status', '/result']) {
      const res = await h.request('GET', `/tasks/${id}${suffix}`, { auth: id === taskId ? strangerKey : h.apiKey });
      assert.equal(res.status, 404);
      assert.deepEqual(res.json, { code: 'TASK_NOT_FOUND' });
    }
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: strangerKey })).json.data, []);
});

test('an access token is refused on the API-key task routes; a key without tasks:read is INSUFFICIENT_SCOPE', async (t) => {
  const h = await startService(t);
  const { taskId } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  assert.equal((await h.request('GET', `/tasks/${taskId}`, { auth: h.token })).json.code, 'UNAUTHORIZED');
  const narrow = await h.server.services.apiKeys.create({ accountId: h.accountId, scopes: ['image:generate'] });
  const res = await h.request('GET', `/tasks/${taskId}/status`, { auth: narrow.raw });
  assert.equal(res.status, 403);
  assert.deepEqual(res.json.scopes, { required: ['tasks:read'], current: ['image:generate'] });
  const create = await h.request('POST', '/test/tasks', {
    auth: (await h.server.services.apiKeys.create({ accountId: h.accountId, scopes: ['tasks:read'] })).raw,
    body: {},
  });
  assert.equal(create.json.code, 'INSUFFICIENT_SCOPE');
});
