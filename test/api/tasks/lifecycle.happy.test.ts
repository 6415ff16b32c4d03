import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf, eventually, startService, waitForTask } from '../../helpers/harness.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('a created task answers 201 with its id and a PAT, runs, and is charged for its items', async (t) => {
  const h = await startService(t);
  const settled: string[] = [];
  h.server.services.events.on('task:settled', (event) => settled.push(event.kind));
  const res = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 3, price: '0.25', metadata: { order: 'A-1' }, unknownField: 'dropped' },
  });
  assert.equal(res.status, 201);
  assert.match(res.json.data.taskId, /^tsk_/);
  assert.match(res.json.data.access.publicAccessToken, /^pat_/);

  const task = await waitForTask(h, res.json.data.taskId);
  assert.deepEqual(Object.keys(task), [
    'id',
    'status',
    'type',
    'cost',
    'createdAt',
    'updatedAt',
    'request',
    'result',
    'apiKeyId',
    'userId',
    'metadata',
    'priority',
    'dataRemoved',
  ]);
  assert.equal(task.status, 'completed');
  assert.equal(task.type, 'test.echo');
  assert.equal(task.cost, '0.75');
  assert.match(task.createdAt, ISO_MS);
  assert.match(task.updatedAt, ISO_MS);
  assert.equal(task.apiKeyId, h.keyId);
  assert.equal(task.userId, h.accountId);
  assert.deepEqual(task.metadata, { order: 'A-1' });
  assert.equal('unknownField' in task.request, false, 'unknown fields are dropped from the stored request');
  assert.equal(task.result.items.length, 3);
  await eventually(() => settled.length > 0);
  assert.deepEqual(settled, ['task.test.echo.completed']);
  assert.deepEqual(await accountOf(h), {
    ...(await accountOf(h)),
    balance: '99.25',
    reserved: '0',
    available: '99.25',
  });
});

test('status and result answer exactly their fields', async (t) => {
  const h = await startService(t);
  const { taskId } = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).json.data;
  await waitForTask(h, taskId);
  const status = await h.request('GET', `/tasks/${taskId}/status`, { auth: h.apiKey });
  assert.deepEqual(status.json, { data: { status: 'completed' } });
  const result = await h.request('GET', `/tasks/${taskId}/result`, { auth: h.apiKey });
  assert.deepEqual(Object.keys(result.json.data), ['id', 'status', 'type', 'result']);
  assert.deepEqual(result.json.data.result, { items: [{ index: 0, attempt: 1 }] });
});

test('a pending task shows result null and cost 0 while its estimate is reserved', async (t) => {
  const h = await startService(t);
  const { taskId } = (
    await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 2, price: '1', delayMs: 5000 } })
  ).json.data;
  const task = (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data;
  assert.equal(task.status, 'pending');
  assert.equal(task.result, null);
  assert.equal(task.cost, '0');
  assert.equal('errors' in task, false);
  const account = await accountOf(h);
  assert.equal(account.reserved, '2');
  assert.equal(account.available, '98');
  assert.equal(account.balance, '100');
});

test('items fail independently: the task completes and only successful items are charged', async (t) => {
  const h = await startService(t);
  const { taskId } = (
    await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 4, price: '1', failItems: [1, 3] } })
  ).json.data;
  const task = await waitForTask(h, taskId);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '2');
  assert.deepEqual(task.result.items[1], { error: { code: 'RESTRICTED_CONTENT', message: 'item 1 refused' } });
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['98', '0']);
});

test('a task whose work fails is failed with errors, free, and emits .failed', async (t) => {
  const h = await startService(t);
  const kinds: string[] = [];
  h.server.services.events.on('task:settled', (event) => kinds.push(event.kind));
  const { taskId } = (
    await h.request('POST', '/test/tasks', {
      auth: h.apiKey,
      body: { items: 2, price: '1', failItems: [0, 1], failCode: 'INVALID_INPUT' },
    })
  ).json.data;
  const task = await waitForTask(h, taskId);
  assert.equal(task.status, 'failed');
  assert.deepEqual(task.errors, [{ code: 'INVALID_INPUT' }]);
  assert.equal(task.result, null);
  assert.equal(task.cost, '0');
  await eventually(() => kinds.length > 0);
  assert.deepEqual(kinds, ['task.test.echo.failed']);
  assert.equal((await accountOf(h)).balance, '100');
});

test('a failure around the items (prepare) fails the task with that code and releases the reserve', async (t) => {
  const h = await startService(t);
  const { taskId } = (
    await h.request('POST', '/test/tasks', {
      auth: h.apiKey,
      body: { items: 3, price: '1', prepareFails: 'CAPABILITY_NOT_SUPPORTED' },
    })
  ).json.data;
  const task = await waitForTask(h, taskId);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'CAPABILITY_NOT_SUPPORTED');
  assert.deepEqual(await accountOf(h), { ...(await accountOf(h)), balance: '100', reserved: '0' });
});

test('retryable failures are retried up to 4 attempts; others are not retried', async (t) => {
  const h = await startService(t);
  const flaky = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, flakyAttempts: 3 } })).json
    .data.taskId;
  const exhausted = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, flakyAttempts: 9 } }))
    .json.data.taskId;
  const refused = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, failItems: [0] } })).json
    .data.taskId;
  const store = h.server.services.store;
  assert.equal((await waitForTask(h, flaky)).status, 'completed');
  assert.equal((await store.tasks.get(flaky))!.items[0].attempts, 4, 'succeeded on the 4th and last attempt');
  const exhaustedTask = await waitForTask(h, exhausted);
  assert.equal(exhaustedTask.status, 'failed');
  assert.deepEqual(exhaustedTask.errors, [{ code: 'PROVIDER_ERROR' }]);
  assert.equal((await store.tasks.get(exhausted))!.items[0].attempts, 4);
  await waitForTask(h, refused);
  assert.equal((await store.tasks.get(refused))!.items[0].attempts, 1);
});

test('with access.pat.enabled false no PAT is returned', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { access: { pat: { enabled: false } } } });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.json.data).sort(), ['estimatedCost', 'taskId']);
});
