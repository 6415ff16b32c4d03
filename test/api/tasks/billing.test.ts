import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf, startService, waitForTask } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

test('a task whose estimate passes the available balance is 422 INSUFFICIENT_BALANCE and nothing is created or held', async (t) => {
  const h = await startService(t, { credit: 1 });
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 3, price: '0.5' } });
  assert.equal(res.status, 422);
  assert.equal(res.json.code, 'INSUFFICIENT_BALANCE');
  assert.equal(typeof res.json.message, 'string');
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, []);
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['1', '0']);
});

test('reserves count against the available balance: a pending task blocks a second one', async (t) => {
  const h = await startService(t, { credit: 1 });
  const first = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 1, price: '0.6', delayMs: 5000 },
  });
  assert.equal(first.status, 201);
  const second = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, price: '0.6' } });
  assert.equal(second.json.code, 'INSUFFICIENT_BALANCE');
});

test('200 parallel creates against a balance that covers 50 create exactly 50 tasks', async (t) => {
  const h = await startService(t, { credit: 5 });
  const results = await Promise.all(
    Array.from({ length: 200 }, () =>
      h.request('POST', '/test/tasks', {
        auth: h.apiKey,
        body: { items: 1, price: '0.1', delayMs: 20, access: { pat: { enabled: false } } },
      }),
    ),
  );
  const created = results.filter((res) => res.status === 201);
  assert.equal(created.length, 50);
  assert.ok(
    results
      .filter((res) => res.status !== 201)
      .every((res) => res.status === 422 && res.json.code === 'INSUFFICIENT_BALANCE'),
  );
  await Promise.all(created.map((res) => waitForTask(h, res.json.data.taskId)));
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved, account.available], ['0', '0', '0']);
  const { checkLedger } = await import('../../../src/services/doctor.js');
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('200 parallel creates against a spending limit that covers 50 create exactly 50 tasks', async (t) => {
  const h = await startService(t, { credit: 100 });
  const limited = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    spendingLimit: 5_000_000,
    spendingLimitPeriod: 'day',
  });
  const results = await Promise.all(
    Array.from({ length: 200 }, () =>
      h.request('POST', '/test/tasks', {
        auth: limited.raw,
        body: { items: 1, price: '0.1', access: { pat: { enabled: false } } },
      }),
    ),
  );
  assert.equal(results.filter((res) => res.status === 201).length, 50);
  const refused = results.filter((res) => res.status !== 201);
  assert.ok(refused.every((res) => res.status === 429 && res.json.code === 'SPENDING_LIMIT_EXCEEDED'));
  assert.equal(refused[0].headers.get('retry-after'), null, 'no Retry-After (SPEC part 7)');
  // The harness key has no limit and is unaffected.
  assert.equal((await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).status, 201);
});

test('a spending limit counts charged + reserved in the current UTC period and clears when it rolls over', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T23:00:00.000Z'));
  const h = await startService(t, { clock });
  const limited = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    spendingLimit: 1_000_000,
    spendingLimitPeriod: 'day',
  });
  const charged = await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.6' } });
  await waitForTask(h, charged.json.data.taskId);
  const held = await h.request('POST', '/test/tasks', {
    auth: limited.raw,
    body: { items: 1, price: '0.3', delayMs: 10_000 },
  });
  assert.equal(held.status, 201);
  const over = await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.2' } });
  assert.equal(over.status, 429);
  assert.equal(over.json.code, 'SPENDING_LIMIT_EXCEEDED');
  assert.equal(
    (await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.1' } })).status,
    201,
    'exactly at the limit is allowed',
  );

  clock.set(Date.parse('2026-11-23T00:00:01.000Z'));
  assert.equal(
    (await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.9' } })).status,
    201,
    'a new day, a new allowance',
  );
});

test('failed items release their share of the spending limit', async (t) => {
  const h = await startService(t);
  const limited = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    spendingLimit: 1_000_000,
    spendingLimitPeriod: 'month',
  });
  const partly = await h.request('POST', '/test/tasks', {
    auth: limited.raw,
    body: { items: 2, price: '0.5', failItems: [0] },
  });
  await waitForTask(h, partly.json.data.taskId);
  assert.equal(
    (await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.5' } })).status,
    201,
  );
  assert.equal(
    (await h.request('POST', '/test/tasks', { auth: limited.raw, body: { items: 1, price: '0.01' } })).json.code,
    'SPENDING_LIMIT_EXCEEDED',
  );
});

test('when queueing fails the create answers 500, the task is failed ENQUEUE_FAILED and its reserve released', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 2, price: '1', unqueueable: true },
  });
  assert.equal(res.status, 500);
  assert.equal(res.json.code, 'ENQUEUE_FAILED');
  const [task] = (await h.request('GET', '/tasks', { auth: h.apiKey })).json.data;
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'ENQUEUE_FAILED');
  assert.equal(task.cost, '0');
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
});

test('past the per-key request rate, creates are 429 RATE_LIMIT_EXCEEDED before anything is reserved', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock, config: { limits: { requestsPerMinutePerKey: 3 } } });
  const statuses = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { price: '1' } })).status);
  assert.deepEqual(statuses, [201, 201, 201, 429, 429]);
  const limited = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { price: '1' } });
  assert.equal(limited.json.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal(limited.headers.get('retry-after'), null);
  assert.equal((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data.length, 3);
  clock.advance(20_000); // a third of a minute refills one call
  assert.equal((await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} })).status, 201);
});

test('past the bound on pending work, creates are 429 RATE_LIMIT_EXCEEDED', async (t) => {
  const h = await startService(t, { config: { limits: { maxPendingTasks: 2 } } });
  for (let i = 0; i < 2; i++)
    assert.equal((await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { delayMs: 10_000 } })).status, 201);
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} });
  assert.equal(res.status, 429);
  assert.equal(res.json.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal((await accountOf(h)).reserved, '0.02');
});
