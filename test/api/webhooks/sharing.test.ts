import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, type Harness, startService } from '../../helpers/harness.js';
import { type Receiver, startReceiver } from '../../helpers/receiver.js';
import { type StallingServer, startStallingServer } from '../../helpers/stalling-server.js';

const SILENT_ENDPOINTS = 6;
const A_TASKS = 16;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function hook(h: Harness, auth: string, url: string) {
  const res = await h.request('POST', '/webhook', { auth, body: { url } });
  assert.equal(res.status, 201, res.text);
}

const task = async (h: Harness, auth: string) => {
  const res = await h.request('POST', '/test/tasks', { auth, body: {} });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId as string;
};

/**
 * Account A (the harness's) with SILENT_ENDPOINTS webhooks on a server that accepts the
 * connection and never answers, and A_TASKS settled tasks, so A_TASKS × SILENT_ENDPOINTS
 * deliveries fall due; account B with one webhook on a healthy receiver. Answers once A's
 * deliveries are all recorded and A holds what it may of the slots.
 */
async function hostileSetup(t: Parameters<typeof startService>[0], webhooks: Record<string, unknown>) {
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true, ...webhooks } } });
  const silent = await startStallingServer(t);
  const healthy = await startReceiver(t);
  const { services } = h.server;
  const b = await services.accounts.create('other', 10_000_000);
  const bKey = (await services.apiKeys.create({ accountId: b.id })).raw;
  const bToken = (await services.tokens.issueAccessToken(b.id, ['manage'], 600_000)).accessToken;
  for (let i = 0; i < SILENT_ENDPOINTS; i++) await hook(h, h.token, silent.url(`/a${i}`));
  await hook(h, bToken, healthy.url());
  await Promise.all(Array.from({ length: A_TASKS }, () => task(h, h.apiKey)));
  await eventually(async () => (await services.store.webhooks.deliveryCounts()).pending === A_TASKS * SILENT_ENDPOINTS);
  await silent.arrived(4);
  return { h, silent, healthy, bTask: () => task(h, bKey) };
}

/** From B's event (its `createdAt`) to the receiver having its request. */
function gapOf(receiver: Receiver, index: number): number {
  const received = receiver.received[index];
  return received.at - Date.parse(received.json.createdAt);
}

const perPath = (server: StallingServer) => {
  const counts = new Map<string, number>();
  for (const request of server.requests) counts.set(request.path, (counts.get(request.path) ?? 0) + 1);
  return counts;
};

test("an account whose endpoints never answer (default timeout) does not delay another account's delivery", async (t) => {
  const { silent, healthy, bTask } = await hostileSetup(t, {});
  await sleep(100);
  await bTask();
  await healthy.waitFor(1);
  const gap = gapOf(healthy, 0);
  t.diagnostic(
    `B's delivery arrived ${gap} ms after its event, with ${silent.requests.length} of A's requests hanging`,
  );
  assert.ok(gap < 1000, `B's delivery came ${gap} ms after its event`);
  assert.ok(
    silent.requests.length <= 4,
    `A holds at most its share of the slots (${silent.requests.length} requests open)`,
  );
  for (const [path, count] of perPath(silent))
    assert.ok(count <= 2, `${path} holds at most its endpoint's cap (${count})`);
});

test('endpoints that keep timing out cool down; the other account is not delayed and no delivery or schedule is disturbed', async (t) => {
  const schedule = [0, ...Array.from({ length: 19 }, () => 100)];
  const { h, silent, healthy, bTask } = await hostileSetup(t, { timeoutMs: 200, retryScheduleMs: schedule });
  const started = Date.now();
  const gaps: number[] = [];
  for (let i = 0; i < 6; i++) {
    await bTask();
    await healthy.waitFor(i + 1);
    gaps.push(gapOf(healthy, i));
    await sleep(500);
  }
  const windowMs = Date.now() - started;
  t.diagnostic(
    `B's deliveries arrived ${gaps.join(', ')} ms after their events; A's silent endpoints got ${silent.requests.length} requests in ${windowMs} ms`,
  );
  assert.ok(Math.max(...gaps) < 1000, `each of B's deliveries within 1 s of its event (${gaps.join(', ')} ms)`);
  // Without the cool-down A's share (4 slots) would send one every 200 ms each: about 60 in 3 s.
  // With it an endpoint gets its first two, then one probe after 1 or 2 s, the next 2 or 4 s later.
  for (const [path, count] of perPath(silent))
    assert.ok(count <= 5, `${path} was tried ${count} times in ${windowMs} ms`);
  assert.ok(silent.requests.length <= 30, `${silent.requests.length} requests to the silent endpoints`);

  const { store } = h.server.services;
  const ofA = (await store.webhooks.pendingDeliveries()).filter((d) => d.accountId === h.accountId);
  assert.equal(ofA.length, A_TASKS * SILENT_ENDPOINTS, "every one of A's deliveries is still pending");
  const attempts = ofA.reduce((sum, d) => sum + d.attempts.length, 0);
  assert.ok(
    attempts > 0 && attempts <= silent.requests.length,
    `${attempts} attempts journaled for ${silent.requests.length} requests`,
  );
  for (const d of ofA) {
    const last = d.attempts.at(-1);
    if (!last) continue;
    assert.equal(last.status, null);
    assert.equal(
      d.nextAttemptAt,
      new Date(Date.parse(last.at) + schedule[d.attempts.length]).toISOString(),
      `${d.id} keeps its retry schedule`,
    );
  }
});
