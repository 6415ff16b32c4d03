// Every setting docs/configuration.md calls hot-reloadable, shown to change a running server's behaviour
// after `services.reload` (what the config-file watcher applies), without a restart.
import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { deepMerge, type JsonObject, loadConfig } from '../../src/config/load.js';
import { startFakeOpenAi } from '../fixtures/fake-openai.js';
import { fakeProviders } from '../fixtures/test-providers.js';
import { eventually, type Harness, send, startService, waitForTask } from '../helpers/harness.js';
import { makeImage, serveFiles } from '../helpers/images.js';
import { startJwksIssuer } from '../helpers/jwks.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startReceiver } from '../helpers/receiver.js';
import { adminCall, reloadWith, startHoldingReceiver, uploadImage } from '../helpers/reload.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function createTestTask(h: Harness, body: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

const createStatus = async (h: Harness, body: Record<string, unknown> = {}) =>
  (await h.request('POST', '/test/tasks', { auth: h.apiKey, body })).status;

const statusOf = async (h: Harness, taskId: string): Promise<string> =>
  (await h.request('GET', `/tasks/${taskId}/status`, { auth: h.apiKey })).json.data.status;

/** The `taskId:index:attempt` lines test tasks append to their run log as each attempt starts. */
async function runsIn(runLog: string): Promise<string[]> {
  const text = await readFile(runLog, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

const startedTasks = async (runLog: string) => new Set((await runsIn(runLog)).map((line) => line.split(':')[0]));

async function createWebhook(h: Harness, url: string): Promise<string> {
  const res = await h.request('POST', '/webhook', { auth: h.token, body: { url } });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id;
}

/** The webhook's deliveries once `count` of them exist and none is pending. */
async function settledDeliveries(h: Harness, webhookId: string, count: number): Promise<any[]> {
  let deliveries: any[] = [];
  await eventually(async () => {
    deliveries = (await h.request('GET', `/webhook/${webhookId}/deliveries`, { auth: h.token })).json.data;
    return deliveries.length === count && deliveries.every((d) => d.status !== 'pending');
  });
  return deliveries;
}

const attemptStatuses = (delivery: { attempts: Array<{ status: number | null }> }) =>
  delivery.attempts.map((a) => a.status);

/** A GET on a connection of its own, closed after the answer, so stopping the server never waits on it. */
function getOnce(url: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    }).on('error', reject);
  });
}

/** A whole model entry (entries of `models` are replaced whole) with a new image price. */
function placeholderPricedAt(h: Harness, perImage: string): JsonObject {
  const model = h.server.services.config.current().models.placeholder;
  return { models: { placeholder: { ...model, price: { ...model.price, perImage } } } } as unknown as JsonObject;
}

test('a reload that changes a model price is used by the next estimate', async (t) => {
  const h = await startService(t);
  const estimate = async () => {
    const { estimatedCost, items } = (
      await h.request('POST', '/tasks/estimate', {
        auth: h.apiKey,
        body: { type: 'image.generate', request: { prompt: 'p', count: 2 } },
      })
    ).json.data;
    return { estimatedCost, items };
  };
  assert.deepEqual(await estimate(), { estimatedCost: '0.002', items: ['0.001', '0.001'] });

  await reloadWith(h, placeholderPricedAt(h, '0.05'));
  assert.deepEqual(await estimate(), { estimatedCost: '0.1', items: ['0.05', '0.05'] });
});

test('a reload that adds a model makes POST /image/generate accept it', async (t) => {
  const h = await startService(t);
  const generate = () =>
    h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a kite', model: 'sketch' } });
  const unknown = await generate();
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.json.error[0].path, ['model']);

  const sketch = {
    provider: 'placeholder',
    price: { perImage: '0.002', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  };
  await reloadWith(h, { models: { sketch } });
  const accepted = await generate();
  assert.equal(accepted.status, 201, accepted.text);
  const task = await waitForTask(h, accepted.json.data.taskId);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '0.002', 'priced as the new model');
});

test('a reload that sets limits.requestsPerMinutePerKey refuses creates past the rate; clearing it lifts the limit', async (t) => {
  const h = await startService(t);
  for (let i = 0; i < 3; i++) assert.equal(await createStatus(h), 201, 'no rate limit yet');

  await reloadWith(h, { limits: { requestsPerMinutePerKey: 2 } });
  assert.deepEqual([await createStatus(h), await createStatus(h)], [201, 201]);
  const limited = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} });
  assert.equal(limited.status, 429);
  assert.equal(limited.json.code, 'RATE_LIMIT_EXCEEDED');

  await reloadWith(h, { limits: { requestsPerMinutePerKey: null } });
  assert.equal(await createStatus(h), 201, 'the limit is gone');
});

test('a reload that raises limits.maxPendingTasks accepts creates that were 429, up to the new bound', async (t) => {
  const h = await startService(t, { config: { limits: { maxPendingTasks: 2 } } });
  const slow = { delayMs: 10_000 };
  assert.deepEqual([await createStatus(h, slow), await createStatus(h, slow)], [201, 201]);
  const refused = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: slow });
  assert.equal(refused.status, 429);
  assert.equal(refused.json.code, 'RATE_LIMIT_EXCEEDED');

  await reloadWith(h, { limits: { maxPendingTasks: 3 } });
  assert.equal(await createStatus(h, slow), 201);
  assert.equal(await createStatus(h, slow), 429, 'the new bound holds too');
});

test('a reload that sets limits.maxQueueDelaySeconds refuses creates behind a long backlog, with Retry-After', async (t) => {
  const h = await startService(t, { config: { limits: { maxQueueDelaySeconds: null }, work: { lanes: { test: 1 } } } });
  const runLog = join(await tempDir(t), 'runs.log');
  await waitForTask(h, await createTestTask(h, { delayMs: 200 })); // the lane's item time is now known
  const backlog = await createTestTask(h, { items: 10, delayMs: 200, runLog });
  await eventually(async () => (await startedTasks(runLog)).has(backlog));
  assert.equal(await createStatus(h), 201, 'no bound: about 2 s of queued work is taken');

  await reloadWith(h, { limits: { maxQueueDelaySeconds: 1 } });
  const refused = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: {} });
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.json.code, 'RATE_LIMIT_EXCEEDED');
  assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
});

test('a reload that sets cors.origins makes answers to that origin carry CORS headers; emptying it removes them', async (t) => {
  const h = await startService(t);
  const origin = 'https://app.example.test';
  const allowOrigin = async () =>
    (await h.request('GET', '/tasks', { auth: h.apiKey, headers: { origin } })).headers.get(
      'access-control-allow-origin',
    );
  const preflightStatus = async () =>
    (await h.request('OPTIONS', '/tasks', { headers: { origin, 'access-control-request-method': 'GET' } })).status;
  assert.deepEqual([await allowOrigin(), await preflightStatus()], [null, 404]);

  await reloadWith(h, { cors: { origins: [origin] } });
  assert.deepEqual([await allowOrigin(), await preflightStatus()], [origin, 204]);

  await reloadWith(h, { cors: { origins: [] } });
  assert.deepEqual([await allowOrigin(), await preflightStatus()], [null, 404]);
});

/** Shows the `test` lane running one task at a time, then (after the reload) three at once. */
async function laneConcurrencyFollowsReload(h: Harness, raised: JsonObject, runLog: string): Promise<void> {
  const first = await createTestTask(h, { delayMs: 300, runLog });
  const second = await createTestTask(h, { delayMs: 300, runLog });
  await eventually(async () => (await startedTasks(runLog)).has(second));
  assert.equal(
    await statusOf(h, first),
    'completed',
    'one at a time: the second started only once the first had settled',
  );
  await waitForTask(h, second);

  await reloadWith(h, raised);
  const trio = [
    await createTestTask(h, { delayMs: 1500, runLog }),
    await createTestTask(h, { delayMs: 1500, runLog }),
    await createTestTask(h, { delayMs: 1500, runLog }),
  ];
  await eventually(async () => {
    const started = await startedTasks(runLog);
    return trio.every((id) => started.has(id));
  });
  for (const id of trio)
    assert.equal(await statusOf(h, id), 'pending', 'three at once: all started before any settled');
}

test('a reload that raises work.lanes.test lets more of its tasks run at once', async (t) => {
  const h = await startService(t, { config: { work: { lanes: { test: 1 } } } });
  await laneConcurrencyFollowsReload(h, { work: { lanes: { test: 3 } } }, join(await tempDir(t), 'runs.log'));
});

test('a reload that raises work.defaultConcurrency lets more tasks of a lane without its own setting run at once', async (t) => {
  const h = await startService(t, { config: { work: { defaultConcurrency: 1 } } });
  await laneConcurrencyFollowsReload(h, { work: { defaultConcurrency: 3 } }, join(await tempDir(t), 'runs.log'));
});

test('a reload that raises webhooks.concurrency lets more deliveries run at once', async (t) => {
  const h = await startService(t, {
    config: { webhooks: { allowPrivateAddresses: true, concurrency: 1, timeoutMs: 10_000 } },
  });
  const receiver = await startHoldingReceiver(t);
  const toThreeEndpoints = (tag: string) => ({
    webhook: { custom: [1, 2, 3].map((n) => ({ url: receiver.url(`/${tag}/${n}`) })) },
  });

  await createTestTask(h, toThreeEndpoints('before'));
  // Each delivery is held until answered: with one at a time, the next arrives only after that.
  for (let n = 1; n <= 3; n++) {
    await eventually(() => receiver.arrived.length >= n);
    receiver.releaseAll();
  }
  assert.equal(receiver.maxOpen, 1, 'one delivery in flight at a time');

  await reloadWith(h, { webhooks: { concurrency: 3 } });
  await createTestTask(h, toThreeEndpoints('after'));
  await eventually(() => receiver.open === 3);
  assert.equal(receiver.maxOpen, 3, 'three deliveries in flight at once');
  receiver.releaseAll();
});

test("a reload that raises webhooks.timeoutMs lets a slow receiver's answer count", async (t) => {
  const h = await startService(t, {
    config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0], timeoutMs: 200 } },
  });
  const slow = await startHoldingReceiver(t, { answerAfterMs: 600 });
  const webhookId = await createWebhook(h, slow.url());

  await createTestTask(h);
  const [timedOut] = await settledDeliveries(h, webhookId, 1);
  assert.equal(timedOut.status, 'failed');
  assert.equal(timedOut.attempts[0].status, null);
  assert.match(timedOut.attempts[0].error, /in time/);

  await reloadWith(h, { webhooks: { timeoutMs: 5000 } });
  await createTestTask(h);
  const answered = (await settledDeliveries(h, webhookId, 2)).find((d) => d.id !== timedOut.id);
  assert.equal(answered.status, 'delivered');
  assert.deepEqual(attemptStatuses(answered), [200]);
});

test('a reload that shortens webhooks.retryScheduleMs retries the next failed delivery on the new schedule', async (t) => {
  const h = await startService(t, {
    config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, HOUR] } },
  });
  const receiver = await startReceiver(t, [500, 500, 200]);
  const webhookId = await createWebhook(h, receiver.url());

  await createTestTask(h);
  await receiver.waitFor(1);
  let first: any;
  await eventually(async () => {
    [first] = (await h.request('GET', `/webhook/${webhookId}/deliveries`, { auth: h.token })).json.data;
    return first?.attempts.length === 1;
  });
  assert.equal(first.status, 'pending');
  assert.equal(Date.parse(first.nextAttemptAt) - Date.parse(first.attempts[0].at), HOUR, 'retried an hour later');

  await reloadWith(h, { webhooks: { retryScheduleMs: [0, 50] } });
  await createTestTask(h);
  let second: any;
  await eventually(async () => {
    const deliveries = (await h.request('GET', `/webhook/${webhookId}/deliveries`, { auth: h.token })).json.data;
    second = deliveries.find((d: { id: string }) => d.id !== first.id);
    return second?.status === 'delivered';
  });
  assert.deepEqual(attemptStatuses(second), [500, 200], 'retried on the new schedule, not an hour later');
});

test('a reload that sets webhooks.allowPrivateAddresses lets deliveries reach a loopback receiver', async (t) => {
  // A loopback URL is refused when given while the setting is off: the webhook is made while it is on, then a reload
  // turns it off.
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0] } } });
  const receiver = await startReceiver(t);
  const webhookId = await createWebhook(h, receiver.url());
  await reloadWith(h, { webhooks: { allowPrivateAddresses: false } });

  await createTestTask(h);
  const [refused] = await settledDeliveries(h, webhookId, 1);
  assert.equal(refused.status, 'failed');
  assert.match(refused.attempts[0].error, /may not reach/);
  assert.equal(receiver.received.length, 0);

  await reloadWith(h, { webhooks: { allowPrivateAddresses: true } });
  await createTestTask(h);
  await receiver.waitFor(1);
  const delivered = (await settledDeliveries(h, webhookId, 2)).find((d) => d.id !== refused.id);
  assert.equal(delivered.status, 'delivered');
});

test('a reload that shortens webhooks.disableAfterMs disables a failing webhook at its next failure', async (t) => {
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 10] } } });
  const down = await startReceiver(t, [500]);
  const webhookId = await createWebhook(h, down.url());
  const webhook = async () => (await h.request('GET', `/webhook/${webhookId}`, { auth: h.token })).json.data;

  await createTestTask(h);
  const [failed] = await settledDeliveries(h, webhookId, 1);
  assert.deepEqual(attemptStatuses(failed), [500, 500]);
  assert.equal((await webhook()).enabled, true, 'failing for milliseconds is far from five days');

  await reloadWith(h, { webhooks: { disableAfterMs: 0 } });
  await createTestTask(h);
  await down.waitFor(3);
  await eventually(async () => (await webhook()).enabled === false);
  await eventually(async () => h.logs.some((line) => line.includes(`disabled webhook ${webhookId}`))); // the operator is told once the write is durable
});

test('a reload that sets fetch.allowPrivateAddresses lets rating fetch a loopback URL', async (t) => {
  const h = await startService(t);
  const url = await serveFiles(t, { '/light.png': await makeImage() });
  const rate = () =>
    h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls: [url('/light.png')] } });
  const refused = await rate();
  assert.equal(refused.status, 500);
  assert.match(refused.json.message, /FETCH_FAILED/);

  await reloadWith(h, { fetch: { allowPrivateAddresses: true } });
  const rated = await rate();
  assert.equal(rated.status, 200, rated.text);
  assert.deepEqual(rated.json.data.results, [{ status: 'success', url: url('/light.png'), level: 'sfw' }]);
});

test('a reload that raises fetch.maxBytes lets rating fetch a larger image', async (t) => {
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true, maxBytes: 1024 } } });
  const image = await makeImage();
  assert.ok(image.length > 1024, 'the image is over the first limit');
  const url = await serveFiles(t, { '/light.png': image });
  const rate = () =>
    h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls: [url('/light.png')] } });
  const refused = await rate();
  assert.equal(refused.status, 500);
  assert.match(refused.json.message, /FETCH_FAILED/);

  await reloadWith(h, { fetch: { maxBytes: 1024 * 1024 } });
  assert.equal((await rate()).status, 200);
});

test('a reload that adds a folder to destinations.local.allowedRoots lets local destinations write under it', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t);
  const create = () =>
    h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'disk', provider: { id: 'local' }, config: { path: join(root, 'out') } },
    });
  const refused = await create();
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, 'VALIDATION_ERROR');
  assert.match(refused.json.message, /allowedRoots/);

  await reloadWith(h, { destinations: { local: { allowedRoots: [root] } } });
  const created = await create();
  assert.equal(created.status, 201, created.text);
  const tested = await h.request('POST', `/destinations/${created.json.data.id}/test`, { auth: h.token });
  assert.equal(tested.status, 200, tested.text);
  assert.equal(tested.json.data.deleted, true, tested.text);
  const keyFolder = join(root, 'out', tested.json.data.key, '..');
  assert.ok((await stat(keyFolder)).isDirectory(), 'the test object was written under the root');
  await assert.rejects(stat(join(root, 'out', tested.json.data.key)), { code: 'ENOENT' }, 'and deleted afterwards');
});

test('a reload that sets destinations.allowPrivateAddresses lets an HTTP destination reach a loopback storage', async (t) => {
  const h = await startService(t);
  const storage = await startReceiver(t);
  const created = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'put', provider: { id: 'http' }, config: { urlTemplate: storage.url('/{key}') } },
  });
  assert.equal(created.status, 201, created.text);
  const testWrite = () => h.request('POST', `/destinations/${created.json.data.id}/test`, { auth: h.token });
  const refused = await testWrite();
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, 'VALIDATION_ERROR');
  assert.equal(storage.received.length, 0);

  await reloadWith(h, { destinations: { allowPrivateAddresses: true } });
  const written = await testWrite();
  assert.equal(written.status, 200, written.text);
  assert.deepEqual(
    storage.received.map((r) => r.method),
    ['PUT', 'DELETE'],
    'the test object was PUT to the storage, then deleted',
  );
  assert.ok(storage.received[0].path.endsWith(written.json.data.key.split('/').pop()), 'at the key the answer names');
});

test('a reload that raises sync.timeoutMs makes a slow alt call answer 200 instead of 202', async (t) => {
  const h = await startService(t, { config: { sync: { timeoutMs: 50 } }, providers: fakeProviders({ delayMs: 400 }) });
  const image = await uploadImage(h);
  const alt = () => h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [image.id] } });
  const early = await alt();
  assert.equal(early.status, 202);
  assert.equal(early.json.data.task.status, 'pending');

  await reloadWith(h, { sync: { timeoutMs: 10_000 } });
  const waited = await alt();
  assert.equal(waited.status, 200, waited.text);
  assert.equal(waited.json.data.task.status, 'completed');
  assert.equal(waited.json.data.results[0].status, 'success');
});

test('a reload that sets publicUrl gives new images service URLs on that base', async (t) => {
  const h = await startService(t);
  const before = await uploadImage(h);
  assert.equal(before.service_url, `${h.url}/images/${before.id}.png`);

  await reloadWith(h, { publicUrl: 'https://images.example.test' });
  const after = await uploadImage(h);
  assert.equal(after.service_url, `https://images.example.test/images/${after.id}.png`);
});

test('a reload that changes images.cacheMaxAgeSeconds changes the Cache-Control of served images', async (t) => {
  const h = await startService(t);
  const image = await uploadImage(h);
  const cacheControl = async () => {
    const res = await getOnce(`${h.url}/images/${image.id}.${image.format}`);
    assert.equal(res.status, 200);
    return res.headers['cache-control'];
  };
  assert.equal(await cacheControl(), 'public, max-age=86400');

  await reloadWith(h, { images: { cacheMaxAgeSeconds: 60 } });
  assert.equal(await cacheControl(), 'public, max-age=60');
});

test('a reload that raises work.retryBaseMs makes the next retry wait longer', async (t) => {
  const h = await startService(t, { config: { work: { retryBaseMs: 1, lanes: { test: 4 } } } });
  const runLog = join(await tempDir(t), 'runs.log');
  // A steady task running alongside is the yardstick: which of the two settles first.
  const flaky = await createTestTask(h, { flakyAttempts: 1, runLog });
  const steady = await createTestTask(h, { delayMs: 1000 });
  const retried = await waitForTask(h, flaky);
  assert.equal(retried.status, 'completed');
  assert.equal(retried.result.items[0].attempt, 2);
  assert.equal(await statusOf(h, steady), 'pending', 'the retry came well before the steady task finished');

  await reloadWith(h, { work: { retryBaseMs: 60_000 } });
  const flakyAgain = await createTestTask(h, { flakyAttempts: 1, runLog });
  await waitForTask(h, await createTestTask(h, { delayMs: 300 }));
  const attemptsAgain = (await runsIn(runLog)).filter((line) => line.startsWith(flakyAgain));
  assert.deepEqual(attemptsAgain, [`${flakyAgain}:0:1`], 'its first attempt failed');
  assert.equal(await statusOf(h, flakyAgain), 'pending', 'and its retry waits on the new, longer backoff');
});

test('a reload that shortens work.sweepIntervalMs reschedules the sweep, which expires a stale task', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock, config: { work: { sweepIntervalMs: HOUR } } });
  const stale = await createTestTask(h, { delayMs: 60_000 });
  clock.advance(25 * HOUR);
  // Longer than the new interval: had the sweep run on it, the stale task would be gone.
  await waitForTask(h, await createTestTask(h, { delayMs: 1200 }));
  assert.equal(await statusOf(h, stale), 'pending', 'no sweep runs on the hourly interval');

  await reloadWith(h, { work: { sweepIntervalMs: 1000 } });
  await eventually(async () => (await statusOf(h, stale)) !== 'pending');
  const expired = (await h.request('GET', `/tasks/${stale}`, { auth: h.apiKey })).json.data;
  assert.equal(expired.status, 'failed');
  assert.equal(expired.errors[0].code, 'TASK_EXPIRED');
});

test('a reload that shortens auth.accessTokenTtl shortens the tokens the operator issues next', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const issue = async () => {
    const res = await adminCall(h, 'tokens.issue', { account: 'acme' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.data as { accessToken: string; expiresAt: string };
  };
  const hourLong = await issue();
  assert.equal(Date.parse(hourLong.expiresAt) - clock.now(), HOUR);

  await reloadWith(h, { auth: { accessTokenTtl: '15m' } });
  const quarterHour = await issue();
  assert.equal(Date.parse(quarterHour.expiresAt) - clock.now(), 15 * MINUTE);
  clock.advance(20 * MINUTE);
  assert.equal((await h.request('GET', '/webhook', { auth: hourLong.accessToken })).status, 200);
  assert.equal(
    (await h.request('GET', '/webhook', { auth: quarterHour.accessToken })).status,
    401,
    'the shorter token has expired',
  );
});

/** Ids of the worker threads running (the embedded models each run in one). */
const workerThreadIds = () =>
  (process.report.getReport() as { workers: Array<{ header: { threadId: number } }> }).workers
    .map((w) => w.header.threadId)
    .sort();

test('a reload that points a provider at another server sends the next generation there, and the embedded model stays loaded', async (t) => {
  const first = await startFakeOpenAi(t);
  const second = await startFakeOpenAi(t);
  const provider = (baseUrl: string) => ({ type: 'openai', baseUrl, model: 'gpt-image-1', timeoutMs: 5000 });
  const gpt = {
    provider: 'oa',
    price: { perImage: '0.04', perInput: '0' },
    capabilities: { maxInputs: 4, supports4k: false, negativePrompt: false },
  };
  // The real embedded nsfw model rates; the other capabilities stay fakes.
  const { nsfwRater: _embeddedInstead, ...otherFakes } = fakeProviders();
  const h = await startService(t, {
    providers: otherFakes,
    config: { providers: { oa: provider(first.baseUrl) }, models: { gpt } },
  });
  const generate = async () => {
    const res = await h.request('POST', '/image/generate', {
      auth: h.apiKey,
      body: { prompt: 'a red kite', model: 'gpt' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitForTask(h, res.json.data.taskId, 15_000)).status, 'completed');
  };
  const image = await uploadImage(h);
  const rate = async () => {
    const res = await h.request('POST', '/image/rate', {
      auth: h.apiKey,
      body: { mode: 'nsfw_sfw', urls: [image.id] },
    });
    assert.equal(res.status, 200, res.text);
    return res.json.data.results[0].level;
  };

  const threadsBefore = workerThreadIds();
  const level = await rate();
  const threadsWithModel = workerThreadIds();
  assert.equal(threadsWithModel.length, threadsBefore.length + 1, 'the first rating loaded the model in its thread');
  await generate();
  assert.deepEqual([first.requests.length, second.requests.length], [1, 0]);

  await reloadWith(h, { providers: { oa: provider(second.baseUrl) } });
  await generate();
  assert.deepEqual(
    [first.requests.length, second.requests.length],
    [1, 1],
    'the rebuilt provider calls the new server',
  );
  assert.equal(await rate(), level);
  assert.deepEqual(workerThreadIds(), threadsWithModel, 'the same model thread rates: nothing was reloaded');
});

test('a config-file edit to server.bodyLimitBytes waits for the next start: the running server keeps its limit', async (t) => {
  const data = await tempDir(t);
  const file = join(data, 'imgtask.json');
  await writeFile(file, JSON.stringify({}));
  const logs: string[] = [];
  const flags = { port: 0 };
  const server = await startServer({
    dataDir: data,
    config: loadConfig({ file, flags, env: {} }),
    configFile: { path: file, flags },
    log: (m) => logs.push(m),
  });
  closeBeforeRemoval(data, () => server.close());
  const account = await server.services.accounts.create('acme', 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id });
  const largeEstimate = () =>
    send(server.url, 'POST', '/tasks/estimate', {
      auth: raw,
      body: { type: 'image.generate', request: { prompt: 'p'.repeat(4000) } },
    });
  assert.equal((await largeEstimate()).status, 200);

  await writeFile(file, JSON.stringify({ server: { bodyLimitBytes: 2048 } }));
  await eventually(() => logs.some((m) => m.startsWith('config: reloaded')));
  assert.ok(logs.includes('config: server changes apply at the next start'));
  assert.equal((await largeEstimate()).status, 200, 'a 4 KB body is still accepted');
});

test('a reload never changes server, store or provenance settings: it keeps them and names them as deferred to the next start', async (t) => {
  const h = await startService(t);
  const before = h.server.services.config.current();
  const { workflows: _read, ...settings } = before;
  const next = loadConfig({
    env: {},
    overrides: deepMerge(settings as unknown as JsonObject, {
      server: { bodyLimitBytes: 2048 },
      store: { snapshotEveryBytes: 8192 },
      sync: { timeoutMs: 1234 },
      provenance: { includePrompt: !before.provenance.includePrompt },
    }),
  });
  assert.deepEqual(await h.server.services.reload(next), { deferred: ['server', 'store', 'provenance'] });
  const now = h.server.services.config.current();
  assert.deepEqual(
    [now.server, now.store, now.provenance, now.sync.timeoutMs],
    [before.server, before.store, before.provenance, 1234],
    'the rest of the edit applies',
  );
  const big = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.generate', request: { prompt: 'p'.repeat(4000) } },
  });
  assert.equal(big.status, 200, 'the running server keeps its body limit');
});

test('a reload that sets or removes auth.externalIssuer starts or stops accepting the tokens of that issuer', async (t) => {
  const { jwksUrl, sign } = await startJwksIssuer(t);
  const h = await startService(t);
  const token = await sign({ account: 'acme', scope: 'keys' });
  const listKeys = async () => (await h.request('GET', '/api-key', { auth: token })).status;

  assert.equal(await listKeys(), 401, 'no external issuer is trusted yet');
  await reloadWith(h, {
    auth: { externalIssuer: { issuer: 'https://id.example', jwksUrl, audience: 'imgtask', accountClaim: 'account' } },
  });
  assert.equal(await listKeys(), 200, 'the issuer set by the reload is trusted');
  await reloadWith(h, { auth: { externalIssuer: null } });
  assert.equal(await listKeys(), 401, 'and no longer once the reload removes it');
});
