import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { periodKey } from '../../src/domain/periods.js';
import { type Harness, startService, waitForTask, webhooksQuiet } from '../helpers/harness.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

// Short retries; a timeout long enough for a receiver on a loaded machine (a timed-out attempt also cools its endpoint
// down).
const FAST = { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 50, 100], timeoutMs: 3000 } };

async function hook(h: Harness, url: string, extra: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/webhook', { auth: h.token, body: { url, ...extra } });
  assert.equal(res.status, 201, res.text);
  return res.json.data as { id: string; secret: string };
}

/**
 * Creates a test task charging `price` (one item) and waits for its settlement to be announced
 * (`task:settled`, which starts the budget check): a read may see the task settled a moment
 * before that, while its record is being made durable.
 */
async function charge(h: Harness, price: string, auth = h.apiKey): Promise<void> {
  let announced: (id: string) => void = () => {};
  const settledIds = new Set<string>();
  const off = h.server.services.events.on('task:settled', ({ task }) => {
    settledIds.add(task.id);
    announced(task.id);
  });
  try {
    const res = await h.request('POST', '/test/tasks', { auth, body: { items: 1, price } });
    assert.equal(res.status, 201, res.text);
    const taskId = res.json.data.taskId as string;
    assert.equal((await waitForTask(h, taskId)).status, 'completed');
    if (!settledIds.has(taskId)) await new Promise<void>((resolve) => (announced = (id) => id === taskId && resolve()));
  } finally {
    off();
  }
}

/** Waits until every budget check has run and every delivery has been made. */
async function quiet(h: Harness): Promise<void> {
  await h.server.services.billingAlerts.idle();
  await webhooksQuiet(h);
}

const billingEvents = (receiver: Receiver) =>
  receiver.received.map((r) => r.json).filter((json) => json?.type === 'billing.threshold_reached');
/**
 * The thresholds a receiver was told of, by scope, lowest first: events are delivered independently, in no set order
 * (two crossed at once may arrive either way).
 */
const thresholdsOf = (receiver: Receiver) =>
  billingEvents(receiver)
    .map((event) => ({ scope: event.data.scope as string, threshold: event.data.threshold as number }))
    .sort((a, b) => a.scope.localeCompare(b.scope) || a.threshold - b.threshold)
    .map(({ scope, threshold }) => `${scope}:${threshold}`);

test('account thresholds: one signed event per threshold as charges cross it, none twice in the month, even after a credit', async (t) => {
  const h = await startService(t, { config: FAST, credit: 10 });
  const receiver = await startReceiver(t);
  const { secret } = await hook(h, receiver.url(), { events: ['billing.threshold_reached'] });
  const month = new Date().toISOString().slice(0, 7);

  await charge(h, '4'); // 40 %
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), []);
  await charge(h, '1.5'); // 5.5 of 10: 55 %
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50']);
  const [delivery] = receiver.received;
  const verified = new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }) as any;
  assert.match(verified.id, /^evt_/);
  assert.equal(verified.id, delivery.headers['webhook-id']);
  assert.match(verified.createdAt, /Z$/);
  assert.deepEqual(verified.data, {
    scope: 'account',
    accountId: h.accountId,
    period: month,
    threshold: 50,
    used: '5.5',
    limit: '10',
  });

  await charge(h, '0.5'); // 60 %: 50 already sent
  await quiet(h);
  assert.equal(billingEvents(receiver).length, 1);
  await charge(h, '2.5'); // 85 %
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50', 'account:80']);
  assert.deepEqual(billingEvents(receiver)[1].data, {
    scope: 'account',
    accountId: h.accountId,
    period: month,
    threshold: 80,
    used: '8.5',
    limit: '10',
  });

  // A credit raises the month's budget: 8.5 of 20 is back under 80 %; crossing it again sends nothing.
  await h.server.services.accounts.credit(h.accountId, 10_000_000, 'top-up');
  await charge(h, '8'); // 16.5 of 20: 82.5 %
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50', 'account:80']);
  await charge(h, '3.5'); // 20 of 20
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50', 'account:80', 'account:100']);
  assert.deepEqual(billingEvents(receiver)[2].data, {
    scope: 'account',
    accountId: h.accountId,
    period: month,
    threshold: 100,
    used: '20',
    limit: '20',
  });
  assert.equal(new Set(billingEvents(receiver).map((e) => e.id)).size, 3);
  assert.equal(receiver.received.length, 3, 'nothing but the billing events (the webhook subscribes to them only)');
});

test('key thresholds against its spending limit; sent to webhooks not bound to other keys; one event when several thresholds are crossed at once', async (t) => {
  const h = await startService(t, { config: FAST, credit: 100 });
  const everyKey = await startReceiver(t);
  const thisKey = await startReceiver(t);
  const otherKey = await startReceiver(t);
  const tasksOnly = await startReceiver(t);
  const { services } = h.server;
  const limited = await services.apiKeys.create({
    accountId: h.accountId,
    spendingLimit: 1_000_000,
    spendingLimitPeriod: 'day',
  });
  await hook(h, everyKey.url(), { events: ['all'] });
  await hook(h, thisKey.url(), { events: ['billing.threshold_reached'], apiKeyIds: [limited.apiKey.id] });
  await hook(h, otherKey.url(), { events: ['billing.threshold_reached'], apiKeyIds: [h.keyId] });
  await hook(h, tasksOnly.url(), { events: ['task.completed'] });

  await charge(h, '0.5', limited.raw);
  await quiet(h);
  assert.deepEqual(thresholdsOf(everyKey), ['key:50']);
  const event = billingEvents(everyKey)[0];
  assert.deepEqual(event.data, {
    scope: 'key',
    accountId: h.accountId,
    apiKeyId: limited.apiKey.id,
    period: periodKey('day', Date.now()),
    threshold: 50,
    used: '0.5',
    limit: '1',
  });
  assert.deepEqual(thresholdsOf(thisKey), ['key:50']);
  assert.equal(billingEvents(thisKey)[0].id, event.id, 'one event, delivered to each webhook');
  await charge(h, '0.5', limited.raw); // 100 %: crosses 80 and 100 at once
  await quiet(h);
  assert.deepEqual(thresholdsOf(everyKey), ['key:50', 'key:80', 'key:100']);
  assert.deepEqual(thresholdsOf(thisKey), ['key:50', 'key:80', 'key:100']);
  assert.deepEqual(thresholdsOf(otherKey), [], 'a webhook bound to another key gets none of this key');
  assert.deepEqual(thresholdsOf(tasksOnly), [], 'a webhook not subscribed gets none');
  assert.equal(tasksOnly.received.length, 2, 'it still gets the task events');
  // The account is at 1 % of 100: no account alert. The harness key has no limit: no key alert.
  await charge(h, '0.25');
  await quiet(h);
  assert.equal(billingEvents(everyKey).length, 3);
  const alerts = await Promise.all(
    [50, 80, 100].map((threshold) =>
      services.store.billing.getAlert(`${limited.apiKey.id}|${periodKey('day', Date.now())}|${threshold}`),
    ),
  );
  assert.deepEqual(
    alerts.map((alert) => [alert?.scope, alert?.threshold, alert?.used, alert?.limit]),
    [
      ['key', 50, 500_000, 1_000_000],
      ['key', 80, 1_000_000, 1_000_000],
      ['key', 100, 1_000_000, 1_000_000],
    ],
  );
});

test('20 parallel settlements crossing 50 % send one event', async (t) => {
  const h = await startService(t, { config: { ...FAST, work: { lanes: { test: 20 } } }, credit: 10 });
  const receiver = await startReceiver(t);
  await hook(h, receiver.url(), { events: ['billing.threshold_reached'] });
  const created = await Promise.all(
    Array.from({ length: 20 }, () =>
      h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, price: '0.3', delayMs: 100 } }),
    ),
  );
  assert.ok(created.every((res) => res.status === 201));
  await Promise.all(created.map((res) => waitForTask(h, res.json.data.taskId)));
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50'], '6 of 10 USD: 50 % once');
  const { used, limit } = billingEvents(receiver)[0].data;
  assert.ok(Number(used) >= 5 && Number(used) <= 6 && limit === '10', `${used} of ${limit}`);
});

test('20 checks of one settlement at once record one alert: the mark decides', async (t) => {
  const h = await startService(t, { config: { ...FAST, billing: { alerts: { thresholds: [] } } }, credit: 1 });
  const receiver = await startReceiver(t);
  await hook(h, receiver.url());
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, price: '0.6' } });
  await waitForTask(h, res.json.data.taskId);
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), [], 'thresholds [] turn alerts off');

  const { services } = h.server;
  await services.reload({ ...services.config.current(), billing: { alerts: { thresholds: [50] } } });
  const task = (await services.store.tasks.get(res.json.data.taskId))!;
  const recorded = await Promise.all(Array.from({ length: 20 }, () => services.billingAlerts.check(task)));
  assert.equal(recorded.flat().length, 1);
  await quiet(h);
  assert.deepEqual(thresholdsOf(receiver), ['account:50']);
  assert.equal(billingEvents(receiver)[0].data.used, '0.6');
});
