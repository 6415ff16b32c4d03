import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { deepMerge, loadConfig } from '../../src/config/load.js';
import { accountOf, eventually, type Harness, send, startService, testStore } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { closeBeforeRemoval } from '../helpers/temp-dir.js';

const withKey = (key: string, extra: Record<string, string> = {}) => ({ 'idempotency-key': key, ...extra });

/** The account's tasks, newest first (ids). */
const taskIds = async (h: Harness, auth = h.apiKey): Promise<string[]> =>
  (await h.request('GET', '/tasks?limit=100', { auth })).json.data.map((task: { id: string }) => task.id);

test('a retry with the same key and body answers the first answer: same task, one reserve', async (t) => {
  const h = await startService(t);
  const body = { items: 2, price: '1.5', delayMs: 60_000 };
  const first = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('order-1') });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const again = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('order-1') });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.text, first.text);
  assert.equal(again.json.data.taskId, first.json.data.taskId);
  assert.match(again.headers.get('content-type') ?? '', /application\/json/);
  assert.ok(again.headers.get('x-request-id'));
  assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
  // The same value with its keys in another order and other spacing is the same request.
  const reordered = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: '{ "delayMs": 60000, "price": "1.5",  "items": 2 }',
    headers: withKey('order-1'),
  });
  assert.equal(reordered.json.data.taskId, first.json.data.taskId);
  assert.deepEqual(await taskIds(h), [first.json.data.taskId]);
  assert.equal((await accountOf(h)).reserved, '3');
  // Without the header, or with another key, each request is its own.
  const plain = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  const other = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('order-2') });
  assert.equal(new Set([first.json.data.taskId, plain.json.data.taskId, other.json.data.taskId]).size, 3);
  assert.equal((await accountOf(h)).reserved, '9');
});

test('50 parallel retries with one key make one task and get 50 identical answers', async (t) => {
  const h = await startService(t);
  const body = { items: 1, price: '0.25', delayMs: 60_000 };
  const answers = await Promise.all(
    Array.from({ length: 50 }, () =>
      send(h.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('burst') }),
    ),
  );
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]));
  assert.equal(new Set(answers.map((a) => a.text)).size, 1);
  assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 49);
  assert.deepEqual(await taskIds(h), [answers[0].json.data.taskId]);
  assert.equal((await accountOf(h)).reserved, '0.25');
});

test('two processes on one database: 50 parallel retries split between them make one task', {
  skip: testStore() !== 'postgres' && 'the file store has one process',
}, async (t) => {
  const h = await startService(t);
  const { mountTestRoutes, testTaskType } = await import('../fixtures/test-task-type.js');
  const { fakeProviders } = await import('../fixtures/test-providers.js');
  const other = await startServer({
    dataDir: h.dataDir,
    config: loadConfig({
      env: {},
      overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 }, work: { shutdownGraceMs: 200 } }, h.storeConfig),
    }),
    taskTypes: [testTaskType as never],
    extendApi: mountTestRoutes,
    providers: fakeProviders(),
  });
  closeBeforeRemoval(h.dataDir, () => other.close());
  const body = { items: 1, price: '0.5', delayMs: 60_000 };
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      send(i % 2 ? other.url : h.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('fleet') }),
    ),
  );
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]));
  assert.equal(new Set(answers.map((a) => a.text)).size, 1);
  assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 49);
  assert.deepEqual(await taskIds(h), [answers[0].json.data.taskId]);
  assert.equal((await accountOf(h)).reserved, '0.5');
});

test('50 parallel retries of a sync route answer one result', async (t) => {
  const h = await startService(t);
  const image = await makeImage({ format: 'png', width: 64, height: 64 });
  const up = await h.request('POST', '/image/upload', { auth: h.apiKey, headers: withKey('img') });
  assert.equal(up.status, 400); // not multipart; an answer like any other
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(image)]), 'a.png');
  const stored = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  const url = ((await stored.json()) as any).data.files[0].service_url;
  const answers = await Promise.all(
    Array.from({ length: 50 }, () =>
      send(h.url, 'POST', '/image/alt', { auth: h.apiKey, body: { urls: [url] }, headers: withKey('alt-1') }),
    ),
  );
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
  assert.equal(new Set(answers.map((a) => a.text)).size, 1);
  assert.deepEqual((await taskIds(h)).length, 1);
});

test('the same key with another body, path or method-path pair is 409 IDEMPOTENCY_KEY_REUSED', async (t) => {
  const h = await startService(t);
  const first = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1 }, headers: withKey('k') });
  assert.equal(first.status, 201);
  const changed = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 2 }, headers: withKey('k') });
  assert.equal(changed.status, 409);
  assert.equal(changed.json.code, 'IDEMPOTENCY_KEY_REUSED');
  assert.equal(typeof changed.json.message, 'string');
  const elsewhere = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { items: 1 },
    headers: withKey('k'),
  });
  assert.equal(elsewhere.status, 409);
  assert.equal(elsewhere.json.code, 'IDEMPOTENCY_KEY_REUSED');
  assert.deepEqual(await taskIds(h), [first.json.data.taskId]);
  // The refusal is not kept: the first request still replays.
  const again = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1 }, headers: withKey('k') });
  assert.equal(again.json.data.taskId, first.json.data.taskId);
});

test('keys are per account: another account with the same key is independent', async (t) => {
  const h = await startService(t);
  const { services } = h.server;
  const other = await services.accounts.create('globex', 50_000_000);
  const { raw } = await services.apiKeys.create({ accountId: other.id, name: 'globex' });
  const mine = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 1 },
    headers: withKey('shared'),
  });
  const theirs = await h.request('POST', '/test/tasks', { auth: raw, body: { items: 1 }, headers: withKey('shared') });
  assert.equal(theirs.status, 201);
  assert.equal(theirs.headers.get('idempotent-replayed'), null);
  assert.notEqual(theirs.json.data.taskId, mine.json.data.taskId);
  // Another credential of the same account shares the key (an access token here).
  const token = await h.request('POST', '/test/tasks', {
    auth: h.token,
    body: { items: 1 },
    headers: withKey('shared'),
  });
  assert.equal(token.json.data.taskId, mine.json.data.taskId);
  // A different body from the other account with that key is refused only there, not here.
  const theirsChanged = await h.request('POST', '/test/tasks', {
    auth: raw,
    body: { items: 3 },
    headers: withKey('shared'),
  });
  assert.equal(theirsChanged.json.code, 'IDEMPOTENCY_KEY_REUSED');
});

test('an Idempotency-Key that is empty, too long or not printable ASCII is 400 VALIDATION_ERROR, before anything is created', async (t) => {
  const h = await startService(t);
  for (const key of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
    const res = await send(h.url, 'POST', '/test/tasks', {
      auth: h.apiKey,
      body: { items: 1 },
      headers: { 'idempotency-key': key },
    });
    assert.equal(res.status, 400, JSON.stringify(key));
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    assert.match(res.json.message, /Idempotency-Key/);
  }
  assert.deepEqual(await taskIds(h), []);
  const longest = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 2 },
    headers: withKey(`${'~'.repeat(254)} `),
  });
  assert.equal(longest.status, 201);
  // A body past the bound is 413 as without the key, and not kept: the key stays free.
  const big = await send(h.url, 'POST', '/test/tasks', {
    auth: h.apiKey,
    body: JSON.stringify({ metadata: { pad: 'x'.repeat(1_100_000) } }),
    headers: withKey('big-body'),
  });
  assert.equal(big.status, 413);
  assert.equal(big.json.code, 'VALIDATION_ERROR');
  assert.equal(
    (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1 }, headers: withKey('big-body') }))
      .status,
    201,
  );
  // Without a valid credential the route answers 401 as always, the key unread.
  const anonymous = await send(h.url, 'POST', '/test/tasks', {
    body: { items: 1 },
    headers: { 'idempotency-key': '' },
  });
  assert.equal(anonymous.status, 401);
});

test('a replayed error answer is the same answer: 422 INSUFFICIENT_BALANCE stays 422 for that key', async (t) => {
  const h = await startService(t, { credit: 1 });
  const body = { items: 1, price: '5' };
  const first = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('big') });
  assert.equal(first.status, 422);
  assert.equal(first.json.code, 'INSUFFICIENT_BALANCE');
  await h.server.services.accounts.credit(h.accountId, 10_000_000, 'top-up');
  const again = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('big') });
  assert.equal(again.status, 422);
  assert.equal(again.text, first.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const fresh = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('big-2') });
  assert.equal(fresh.status, 201);
  // 401 and 403 answers are not kept: the same key works once the credential does.
  const { raw } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: 'narrow',
    scopes: ['tasks:read'],
  });
  const refused = await h.request('POST', '/test/tasks', { auth: raw, body: { items: 1 }, headers: withKey('scoped') });
  assert.equal(refused.status, 403);
  // A credential of the account that may not call the route gets no replay of its answers either.
  const peek = await h.request('POST', '/test/tasks', { auth: raw, body, headers: withKey('big') });
  assert.equal(peek.status, 403);
  assert.equal(peek.json.code, 'INSUFFICIENT_SCOPE');
  const allowed = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 1 },
    headers: withKey('scoped'),
  });
  assert.equal(allowed.status, 201);
  assert.equal(allowed.headers.get('idempotent-replayed'), null);
});

test("replays count against the key's requestsPerMinute like any request", async (t) => {
  // A still clock: the three requests fall in one window.
  const h = await startService(t, { clock: new ManualClock(Date.parse('2026-11-22T08:00:10.000Z')) });
  const { raw } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: 'limited',
    requestsPerMinute: 2,
  });
  const first = await h.request('POST', '/test/tasks', { auth: raw, body: { items: 1 }, headers: withKey('rl') });
  assert.equal(first.status, 201);
  const replay = await h.request('POST', '/test/tasks', { auth: raw, body: { items: 1 }, headers: withKey('rl') });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.headers.get('ratelimit-remaining'), '0');
  const over = await h.request('POST', '/test/tasks', { auth: raw, body: { items: 1 }, headers: withKey('rl') });
  assert.equal(over.status, 429);
  assert.equal(over.json.code, 'RATE_LIMIT_EXCEEDED');
});

test('answers survive a restart of the service on the same store', async (t) => {
  const h = await startService(t);
  const body = { items: 1, price: '0.5', delayMs: 60_000 };
  const first = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('durable') });
  const hook = await h.request('POST', '/webhook', {
    auth: h.token,
    body: { url: 'https://example.com/hook' },
    headers: withKey('hook'),
  });
  assert.equal(hook.status, 201);
  await h.server.close();
  const { mountTestRoutes, testTaskType } = await import('../fixtures/test-task-type.js');
  const { fakeProviders } = await import('../fixtures/test-providers.js');
  const again = await startServer({
    dataDir: h.dataDir,
    config: loadConfig({
      env: {},
      overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 }, work: { shutdownGraceMs: 200 } }, h.storeConfig),
    }),
    taskTypes: [testTaskType as never],
    extendApi: mountTestRoutes,
    providers: fakeProviders(),
  });
  closeBeforeRemoval(h.dataDir, () => again.close());
  const replay = await send(again.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('durable') });
  assert.equal(replay.status, 201);
  assert.equal(replay.text, first.text);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const hookAgain = await send(again.url, 'POST', '/webhook', {
    auth: h.token,
    body: { url: 'https://example.com/hook' },
    headers: withKey('hook'),
  });
  assert.equal(hookAgain.text, hook.text);
  assert.equal((await send(again.url, 'GET', '/webhook', { auth: h.token })).json.data.length, 1);
  const changed = await send(again.url, 'POST', '/test/tasks', {
    auth: h.apiKey,
    body: { ...body, items: 2 },
    headers: withKey('durable'),
  });
  assert.equal(changed.json.code, 'IDEMPOTENCY_KEY_REUSED');
  // Answers are kept sealed: a raw secret is not in the store's records as plain text.
  const record = await again.services.store.idempotency.get(`${h.accountId}:hook`, new Date().toISOString());
  assert.ok(record?.answer);
  assert.ok(!record.answer.includes(hook.json.data.secret));
});

test('an answer is replayed for 24 hours, then the key is new again', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  const h = await startService(t, { clock });
  const body = { items: 1, delayMs: 60_000 };
  const first = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('daily') });
  clock.advance(24 * 3_600_000 - 1);
  const within = await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('daily') });
  assert.equal(within.json.data.taskId, first.json.data.taskId);
  clock.advance(1);
  const after = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { ...body, items: 2 },
    headers: withKey('daily'),
  });
  assert.equal(after.status, 201);
  assert.equal(after.headers.get('idempotent-replayed'), null);
  assert.notEqual(after.json.data.taskId, first.json.data.taskId);
  assert.equal((await taskIds(h)).length, 2);
  // Expired answers are purged from the store (in the background, on a later request).
  clock.advance(25 * 3_600_000);
  await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('later') });
  const store = h.server.services.store.idempotency;
  // (read as of a time before it expired: only a deleted record is absent then)
  await eventually(async () => (await store.get(`${h.accountId}:daily`, '2026-11-22T00:00:00.000Z')) === undefined);
  assert.ok(await store.get(`${h.accountId}:later`, new Date(clock.now()).toISOString()));
});

test('a key claimed elsewhere: the retry waits for it, takes it over once the claim lapses, or answers 409 IDEMPOTENCY_KEY_IN_USE', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  const h = await startService(t, { clock });
  const store = h.server.services.store.idempotency;
  const body = { items: 1 };
  // Learn the request's fingerprint from a first answered key.
  await h.request('POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('probe') });
  const { fingerprint } = (await store.get(`${h.accountId}:probe`, new Date(clock.now()).toISOString()))!;
  const claimOf = (key: string) => ({
    id: `${h.accountId}:${key}`,
    accountId: h.accountId,
    key,
    fingerprint,
    createdAt: new Date(clock.now()).toISOString(),
    expiresAt: new Date(clock.now() + 60_000).toISOString(),
    claim: `other-${key}`,
  });
  // A claim of a process that stopped: the retry polls until it lapses, then runs the request.
  assert.deepEqual(await store.claim(claimOf('crashed'), new Date(clock.now()).toISOString()), { claimed: true });
  const pending = send(h.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('crashed') });
  await new Promise((resolve) => setTimeout(resolve, 200));
  clock.advance(60_000);
  const taken = await pending;
  assert.equal(taken.status, 201);
  assert.equal(taken.headers.get('idempotent-replayed'), null);
  // A claim that is released (its answer not kept) frees the key for the waiting retry.
  await store.claim(claimOf('released'), new Date(clock.now()).toISOString());
  const waiting = send(h.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('released') });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await store.release(`${h.accountId}:released`, 'other-released');
  assert.equal((await waiting).status, 201);
  // A claim held past the wait: 409 with Retry-After.
  await store.claim(claimOf('busy'), new Date(clock.now()).toISOString());
  const started = Date.now();
  const busy = await send(h.url, 'POST', '/test/tasks', { auth: h.apiKey, body, headers: withKey('busy') });
  assert.equal(busy.status, 409);
  assert.equal(busy.json.code, 'IDEMPOTENCY_KEY_IN_USE');
  assert.equal(busy.headers.get('retry-after'), '1');
  assert.ok(Date.now() - started >= 4000);
  // A claim with another body is refused at once.
  const changed = await send(h.url, 'POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 2 },
    headers: withKey('busy'),
  });
  assert.equal(changed.json.code, 'IDEMPOTENCY_KEY_REUSED');
});

test('resource-creating routes and uploads replay too: one API key, one secret rotation, the same upload', async (t) => {
  const h = await startService(t);
  const key = await h.request('POST', '/api-key', { auth: h.token, body: { name: 'ci' }, headers: withKey('key-1') });
  assert.equal(key.status, 201);
  const keyAgain = await h.request('POST', '/api-key', {
    auth: h.token,
    body: { name: 'ci' },
    headers: withKey('key-1'),
  });
  assert.equal(keyAgain.text, key.text);
  const keys = (await h.request('GET', '/api-key', { auth: h.token })).json.data;
  assert.equal(keys.filter((k: { name?: string }) => k.name === 'ci').length, 1);
  // A route with a path parameter: the secret is rotated once, and the path is part of the request.
  const hook = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://example.com/a' } })).json
    .data;
  const rotated = await h.request('POST', `/webhook/${hook.id}/rotate-secret`, {
    auth: h.token,
    headers: withKey('rot-1'),
  });
  const rotatedAgain = await h.request('POST', `/webhook/${hook.id}/rotate-secret`, {
    auth: h.token,
    headers: withKey('rot-1'),
  });
  assert.equal(rotatedAgain.headers.get('idempotent-replayed'), 'true');
  assert.equal(rotatedAgain.text, rotated.text);
  assert.equal(
    (await h.request('GET', `/webhook/${hook.id}`, { auth: h.token })).json.data.secret,
    rotated.json.data.secret,
  );
  const otherHook = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://example.com/b' } }))
    .json.data;
  const elsewhere = await h.request('POST', `/webhook/${otherHook.id}/rotate-secret`, {
    auth: h.token,
    headers: withKey('rot-1'),
  });
  assert.equal(elsewhere.json.code, 'IDEMPOTENCY_KEY_REUSED');
  // Uploads: a client's FormData has a new boundary on each send; the same files are the same request.
  const image = await makeImage({ format: 'png', width: 70, height: 50 });
  const upload = async () => {
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(image)]), 'a.png');
    const res = await fetch(`${h.url}/image/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'idempotency-key': 'up-1' },
      body: form,
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json: (await res.json()) as any };
  };
  const up1 = await upload();
  const up2 = await upload();
  assert.equal(up1.status, 201);
  assert.equal(up2.replayed, 'true');
  assert.equal(up2.json.data.files[0].id, up1.json.data.files[0].id);
});

test('the API description shows the header on the creating routes and the 409 answers', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  for (const [path, method] of [
    ['/image/generate', 'post'],
    ['/image/upload', 'post'],
    ['/api-key', 'post'],
    ['/webhook', 'post'],
    ['/destinations', 'post'],
  ]) {
    const operation = doc.paths[path][method];
    const header = operation.parameters?.find(
      (p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header',
    );
    assert.ok(header, `${method} ${path} documents Idempotency-Key`);
    assert.equal(header.required, false);
    assert.equal(header.schema.maxLength, 255);
    assert.match(JSON.stringify(operation.responses['409']), /IDEMPOTENCY_KEY_REUSED/);
  }
  assert.equal(
    doc.paths['/tasks/{id}'].get.parameters?.find((p: { name: string }) => p.name === 'Idempotency-Key'),
    undefined,
  );
});
