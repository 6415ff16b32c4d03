import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAdminOp } from '../../src/app/admin/ops.js';
import { loadConfig } from '../../src/config/load.js';
import { isoTime } from '../../src/domain/time.js';
import { createRetention } from '../../src/services/retention-sweep.js';
import type { ConsoleSessionRecord } from '../../src/store/records.js';
import { consoleSignIn } from '../helpers/console.js';
import { type Harness, send, startService, waitForTask, webhooksQuiet } from '../helpers/harness.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startReceiver } from '../helpers/receiver.js';
import { reloadWith, uploadImage } from '../helpers/reload.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A generate of one placeholder image by `key`, settled; answers the task and its image's path on this server. */
async function generated(h: Harness, key: string, prompt: string) {
  const res = await h.request('POST', '/image/generate', { auth: key, body: { prompt, metadata: { note: prompt } } });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask({ ...h, apiKey: key }, res.json.data.taskId);
  assert.equal(task.status, 'completed');
  return { id: task.id as string, image: new URL(task.result.images[0].service_url).pathname };
}

/** What the metrics say retention removed of a kind since start. */
async function removedMetric(h: Harness, kind: string): Promise<number> {
  const text = (await send(h.url, 'GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`imgtask_retention_removed_total{kind="${kind}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const sweep = (h: Harness) => runAdminOp(h.server.services.admin, 'sweep', {});

test('retention removes outputs, uploads and task records by age, each account with its own settings; a task whose outputs aged out reads as deleted', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock, config: { retention: { outputs: '7d', uploads: '2d' } } });
  const { services } = h.server;
  const globex = await services.accounts.create('globex', 100_000_000);
  const globexKey = (await services.apiKeys.create({ accountId: globex.id, name: 'g' })).raw;
  // globex keeps its outputs, and its task records only 40 days; acme follows the config.
  await runAdminOp(services.admin, 'accounts.set', { account: 'globex', retention: { outputs: 'off', tasks: '40d' } });

  const acmeTask = await generated(h, h.apiKey, 'a lighthouse at dusk');
  const globexTask = await generated(h, globexKey, 'a harbour at dawn');
  const upload = await uploadImage(h);
  const uploadPath = new URL(upload.service_url).pathname;
  assert.equal((await send(h.url, 'GET', uploadPath)).status, 200);

  clock.advance(3 * DAY);
  const first = await sweep(h);
  assert.deepEqual(
    first.retention,
    { outputs: 0, uploads: 1, tasks: 0, deliveries: 0, consoleSessions: 0 },
    'the upload is past 2d; no output is past 7d',
  );
  assert.equal((await send(h.url, 'GET', uploadPath)).status, 404, 'the uploaded image is gone');
  assert.equal((await send(h.url, 'GET', acmeTask.image)).status, 200);

  clock.advance(5 * DAY);
  const second = await sweep(h);
  assert.deepEqual(
    second.retention,
    { outputs: 1, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 },
    "acme's outputs are past 7d; globex keeps its own",
  );
  const scrubbed = (await h.request('GET', `/tasks/${acmeTask.id}`, { auth: h.apiKey })).json.data;
  assert.equal(scrubbed.dataRemoved, true);
  assert.equal(scrubbed.dataRemovedAt, isoTime(clock.now()));
  assert.equal(scrubbed.result, null);
  assert.deepEqual(scrubbed.request, {});
  assert.equal(scrubbed.metadata, null);
  assert.equal(scrubbed.status, 'completed', 'status and cost stay');
  assert.equal((await send(h.url, 'GET', acmeTask.image)).status, 404, 'its image is no longer served');
  const kept = (await h.request('GET', `/tasks/${globexTask.id}`, { auth: globexKey })).json.data;
  assert.equal(kept.dataRemoved, false);
  assert.equal((await send(h.url, 'GET', globexTask.image)).status, 200);
  assert.equal(await removedMetric(h, 'outputs'), 1);
  assert.equal(await removedMetric(h, 'uploads'), 1);

  clock.advance(33 * DAY);
  const third = await sweep(h);
  assert.deepEqual(
    third.retention,
    { outputs: 0, uploads: 0, tasks: 1, deliveries: 0, consoleSessions: 0 },
    "globex's task record is past its 40d; acme keeps task records (off)",
  );
  assert.equal((await h.request('GET', `/tasks/${globexTask.id}`, { auth: globexKey })).status, 404);
  assert.equal((await send(h.url, 'GET', globexTask.image)).status, 404, 'its outputs went with it');
  assert.equal((await h.request('GET', `/tasks/${acmeTask.id}`, { auth: h.apiKey })).status, 200);
  assert.equal(await removedMetric(h, 'tasks'), 1);
  const doctor = await runAdminOp(services.admin, 'doctor', { inventory: false });
  assert.equal(doctor.ledger.ok, true, doctor.ledger.problems.join('; '));
  assert.deepEqual(
    (await sweep(h)).retention,
    { outputs: 0, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 },
    'nothing twice',
  );
});

test('delivery logs are purged once past retention.deliveries, and expired console sessions past retention.consoleSessions', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, {
    clock,
    config: { retention: { deliveries: '1d', consoleSessions: '1h' }, webhooks: { allowPrivateAddresses: true } },
  });
  const { store } = h.server.services;
  const receiver = await startReceiver(t);
  assert.equal((await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } })).status, 201);
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { order: 'o-1' } } });
  const task = await waitForTask(h, created.json.data.taskId);
  await webhooksQuiet(h);
  const eventId = (await store.tasks.get(task.id))!.eventId!;
  assert.ok(await store.webhooks.getEvent(eventId));
  assert.equal((await store.webhooks.deliveryCounts()).delivered, 1);

  const at = (offset: number) => isoTime(clock.now() + offset);
  const session = (id: string, expiresAt: string): ConsoleSessionRecord => ({
    id,
    hash: `hash_${id}`,
    kind: 'session',
    accountId: h.accountId,
    scopes: [],
    via: 'link',
    createdAt: at(-DAY),
    expiresAt,
  });
  await store.consoleSessions.put(session('cs_old', at(-2 * HOUR)));
  await store.consoleSessions.put(session('cs_recent', at(-30 * 60_000)));

  clock.advance(23 * HOUR);
  const early = await sweep(h);
  assert.equal(early.retention.deliveries, 0, 'not a day old yet');
  assert.equal(early.retention.consoleSessions, 2, 'both sessions are more than an hour past their expiry');
  clock.advance(2 * HOUR);
  const swept = await sweep(h);
  assert.equal(swept.retention.deliveries, 1);
  assert.equal(swept.retention.consoleSessions, 0, 'nothing twice');
  assert.equal(await removedMetric(h, 'consoleSessions'), 2);
  assert.deepEqual(await store.webhooks.deliveryCounts(), { pending: 0, delivered: 0, failed: 0 });
  assert.equal(
    await store.webhooks.getEvent(eventId),
    undefined,
    'the event and its payload went with its last delivery',
  );
  assert.equal(await removedMetric(h, 'deliveries'), 1);
  // 25 hours on, both sessions are past the hour kept after they expired.
  assert.equal(await store.consoleSessions.getByHash('hash_cs_old'), undefined);
  assert.equal(await store.consoleSessions.getByHash('hash_cs_recent'), undefined);
});

test('an expired console session is kept for retention.consoleSessions after it expired, then the sweep removes it', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock, config: { retention: { consoleSessions: '2h' } } });
  const { store } = h.server.services;
  const expiresAt = isoTime(clock.now() - HOUR);
  await store.consoleSessions.put({
    id: 'cs_a',
    hash: 'hash_cs_a',
    kind: 'session',
    accountId: h.accountId,
    scopes: [],
    via: 'link',
    createdAt: isoTime(clock.now() - DAY),
    expiresAt,
  });
  // A sign-in purges what is past the same retention, not everything expired.
  await consoleSignIn(h);
  await sweep(h);
  assert.ok(await store.consoleSessions.getByHash('hash_cs_a'), 'expired an hour ago: kept');
  clock.advance(90 * 60_000);
  assert.equal((await sweep(h)).retention.consoleSessions, 1);
  assert.equal(await store.consoleSessions.getByHash('hash_cs_a'), undefined, 'expired 2.5 hours ago: removed');
});

test('a config reload of retention applies to the next sweep', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { order: 'o-2' } } });
  const task = await waitForTask(h, created.json.data.taskId);
  clock.advance(2 * DAY);
  assert.equal((await sweep(h)).retention.outputs, 0, 'outputs are kept by default');
  await reloadWith(h, { retention: { outputs: '1d' } });
  assert.equal((await sweep(h)).retention.outputs, 1);
  assert.equal((await h.request('GET', `/tasks/${task.id}`, { auth: h.apiKey })).json.data.metadata, null);
});

test('the sweep goes through more than one batch, yielding between them', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock, config: { retention: { outputs: '1h' } } });
  const { services } = h.server;
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { i: String(i) } } })).json.data
        .taskId,
    );
  for (const id of ids) await waitForTask(h, id);
  clock.advance(2 * HOUR);
  const logs: string[] = [];
  const retention = createRetention({
    store: services.store,
    config: services.config,
    clock,
    removal: services.dataRemoval,
    log: (m) => logs.push(m),
    batchSize: 2,
  });
  assert.deepEqual(await retention.sweep(), { outputs: 5, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 });
  assert.deepEqual(logs, ['retention: removed the outputs and text of 5 task(s) (retention.outputs)']);
  for (const id of ids) assert.ok((await services.store.tasks.get(id))!.dataRemovedAt);
  assert.deepEqual(await retention.sweep(), { outputs: 0, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 });
});

test('the config refuses a retention that is not a duration or off, or below its floor, naming the key', () => {
  for (const [retention, pattern] of [
    [{ tasks: '30d' }, /retention\.tasks: at least 31d \(so the current month's spend and usage stay whole\), not 30d/],
    [{ outputs: '30m' }, /retention\.outputs: at least 1h, not 30m/],
    [
      { deliveries: 'forever' },
      /retention\.deliveries: a duration such as 30d, 12h or 90m, or "off" \(kept forever\), not "forever"/,
    ],
  ] as const) {
    assert.throws(() => loadConfig({ env: {}, overrides: { retention } }), pattern);
  }
  const config = loadConfig({ env: {}, overrides: { retention: { tasks: '31d', outputs: 'off', uploads: '90m' } } });
  assert.deepEqual(config.retention, {
    outputs: 'off',
    uploads: '90m',
    tasks: '31d',
    deliveries: '30d',
    consoleSessions: '7d',
  });
});
