import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, startService, waitForTask } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

/** The value of one series in a Prometheus text exposition; undefined when absent. */
/** True once the test lane runs an item (the slow task has been picked up). */
const lanesBusy = (text: string) => sample(text, 'imgtask_lane_running{lane="test"}') === 1;

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('GET /metrics: requests by route pattern and status, tasks by type and status, lanes, item times, money per account, webhooks, event-loop lag', async (t) => {
  const receiver = await startReceiver(t, [200]);
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true } } });
  const hook = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url('/hook') } });
  assert.equal(hook.status, 201, hook.text);

  assert.equal((await h.request('GET', '/tasks/tsk_missing1', { auth: h.apiKey })).status, 404);
  assert.equal((await h.request('GET', '/tasks/tsk_missing2', { auth: h.apiKey })).status, 404);
  assert.equal((await h.request('GET', '/no/such/route')).status, 404);
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 2, price: '0.25' } });
  assert.equal(created.status, 201, created.text);
  const done = await waitForTask(h, created.json.data.taskId);
  assert.equal(done.status, 'completed');
  const failed = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, failItems: [0] } });
  assert.equal((await waitForTask(h, failed.json.data.taskId)).status, 'failed');
  // A pending task holds its reserve while the scrape runs.
  const slow = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 1, price: '0.5', delayMs: 60_000 },
  });
  assert.equal(slow.status, 201);
  await receiver.waitFor(2);
  // On PostgreSQL a process claims a new task after its create commits (NOTIFY): wait until it runs.
  await eventually(async () => lanesBusy(await (await fetch(`${h.url}/metrics`)).text()), 10_000);

  const res = await fetch(`${h.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.ok(res.headers.get('x-request-id'));
  const text = await res.text();

  assert.equal(
    sample(text, 'imgtask_http_requests_total{method="GET",route="/tasks/:id",status="404"}'),
    2,
    'by route pattern, not by path',
  );
  assert.equal(sample(text, 'imgtask_http_requests_total{method="GET",route="(unmatched)",status="404"}'), 1);
  assert.ok(!text.includes('tsk_missing') && !text.includes('/no/such/route'), 'no raw paths become labels');
  assert.equal(
    sample(text, 'imgtask_http_request_duration_seconds_count{method="POST",route="/test/tasks",status="201"}'),
    3,
  );
  assert.match(
    text,
    /imgtask_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/tasks\/:id",status="404"\} \d/,
  );

  assert.equal(sample(text, 'imgtask_tasks{type="test.echo",status="completed"}'), 1);
  assert.equal(sample(text, 'imgtask_tasks{type="test.echo",status="failed"}'), 1);
  assert.equal(sample(text, 'imgtask_tasks{type="test.echo",status="pending"}'), 1);
  assert.equal(sample(text, 'imgtask_lane_running{lane="test"}'), 1);
  assert.equal(sample(text, 'imgtask_lane_queued{lane="test"}'), 0);
  assert.equal(sample(text, 'imgtask_lane_concurrency{lane="test"}'), 2);
  assert.equal(sample(text, 'imgtask_item_attempt_duration_seconds_count{type="test.echo",outcome="success"}'), 2);
  assert.equal(sample(text, 'imgtask_item_attempt_duration_seconds_count{type="test.echo",outcome="failure"}'), 1);

  const account = `{account_id="${h.accountId}",account="acme"}`;
  assert.equal(sample(text, `imgtask_account_reserved_usd${account}`), 0.5);
  assert.equal(
    sample(text, `imgtask_account_charged_usd${account}`),
    0.5,
    'two items at 0.25 charged; the failed task charged nothing',
  );
  assert.equal(sample(text, `imgtask_account_balance_usd${account}`), 99.5);

  // Both settled tasks' deliveries made and journaled (the slow task stays pending: no event yet).
  let again = '';
  await eventually(async () => {
    again = await (await fetch(`${h.url}/metrics`)).text();
    return sample(again, 'imgtask_webhook_attempts_total{outcome="success"}') === 2;
  });
  assert.equal(sample(again, 'imgtask_webhook_backlog'), 0);
  assert.equal(sample(again, 'imgtask_webhook_deliveries{status="delivered"}'), 2);
  assert.equal(sample(again, 'imgtask_webhook_failures_total'), 0);
  assert.ok((sample(again, 'nodejs_eventloop_lag_seconds') ?? -1) >= 0, 'event-loop lag is exported');
  assert.ok(sample(again, 'nodejs_eventloop_lag_p99_seconds') !== undefined);
  assert.ok(
    (sample(again, 'imgtask_http_requests_total{method="GET",route="/metrics",status="200"}') ?? 0) >= 1,
    'the first scrape is counted',
  );
});

test('GET /metrics with metrics.token set answers 401 UNAUTHORIZED without that bearer, and the metrics with it', async (t) => {
  const token = 'scrape-token-0123456789';
  const h = await startService(t, { config: { metrics: { token } } });
  for (const authorization of [
    undefined,
    'Bearer wrong-token-0123456789',
    `Basic ${token}`,
    `Bearer ${token}x`,
    'Bearer ',
  ]) {
    const res = await h.request('GET', '/metrics', { headers: authorization ? { authorization } : {} });
    assert.equal(res.status, 401, String(authorization));
    assert.equal(res.json.code, 'UNAUTHORIZED');
  }
  assert.equal(
    (await h.request('GET', '/metrics', { auth: h.apiKey })).status,
    401,
    'an API key is not the metrics token',
  );
  const ok = await h.request('GET', '/metrics', { auth: token });
  assert.equal(ok.status, 200);
  assert.match(ok.text, /^# HELP imgtask_/m);
  assert.ok(!ok.text.includes(token));
});

test('GET /metrics with metrics.enabled off answers 404 NOT_FOUND', async (t) => {
  const h = await startService(t, { config: { metrics: { enabled: false } } });
  const res = await h.request('GET', '/metrics');
  assert.equal(res.status, 404);
  assert.equal(res.json.code, 'NOT_FOUND');
});

test('config: a metrics token shorter than 16 characters is refused', async () => {
  const { loadConfig } = await import('../../../src/config/load.js');
  assert.throws(() => loadConfig({ env: {}, overrides: { metrics: { token: 'short' } } }), /metrics\.token/);
});
