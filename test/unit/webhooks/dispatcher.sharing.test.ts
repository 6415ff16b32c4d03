import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../src/services/event-bus.js';
import { createWebhookDispatcher } from '../../../src/webhooks/dispatcher.js';
import type { DeliveryRecord, Outbox } from '../../../src/webhooks/outbox.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RETRY_MS = 100;

/** An in-memory outbox: due order, a failed attempt due again RETRY_MS later, a delivered one gone. */
function fakeOutbox() {
  const pending = new Map<string, DeliveryRecord>();
  let seq = 0;
  const add = (accountId: string, url: string) => {
    const at = new Date().toISOString();
    const id = `dlv_${String(seq++).padStart(6, '0')}`;
    pending.set(id, {
      id,
      eventId: `evt_${id}`,
      accountId,
      webhookId: null,
      url,
      status: 'pending',
      attempts: [],
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    });
    return id;
  };
  const byDue = () =>
    [...pending.values()].sort(
      (a, b) => Date.parse(a.nextAttemptAt!) - Date.parse(b.nextAttemptAt!) || a.id.localeCompare(b.id),
    );
  const outbox = {
    async due(at: number, limit: number, skip: ReadonlySet<string>) {
      const next = byDue()
        .filter((d) => !skip.has(d.id))
        .slice(0, limit + 1);
      const due = next.filter((d) => Date.parse(d.nextAttemptAt!) <= at).slice(0, limit);
      return { due, nextAt: next.length > due.length ? Date.parse(next[due.length].nextAttemptAt!) : null };
    },
    async message(d: DeliveryRecord) {
      return { id: d.eventId, body: '{}' };
    },
    async recordAttempt(d: DeliveryRecord, result: { status: number | null; latencyMs: number }) {
      const stored = pending.get(d.id)!;
      assert.equal(stored.attempts.length, d.attempts.length, `${d.id} was taken as it stands in the store`);
      const now = Date.now();
      const attempts = [
        ...stored.attempts,
        { at: new Date(now).toISOString(), status: result.status, latencyMs: result.latencyMs },
      ];
      if (result.status === 200) {
        pending.delete(d.id);
        return { ...stored, attempts, status: 'delivered' as const };
      }
      const next = { ...stored, attempts, nextAttemptAt: new Date(now + RETRY_MS).toISOString() };
      pending.set(d.id, next);
      return next;
    },
  };
  return { outbox: outbox as unknown as Outbox, pending, add };
}

const config = (webhooks: Record<string, number>) =>
  ({ current: () => ({ webhooks }), onChange: () => () => undefined }) as never;

test("an account's endpoints that never answer hold at most its share, cool down, and do not delay another account", async () => {
  const fake = fakeOutbox();
  // 150 of A's deliveries to three silent endpoints fall due ahead of B's.
  for (let i = 0; i < 150; i++) fake.add('A', `http://silent/${i % 3}`);
  const open = { total: 0, byUrl: new Map<string, number>() };
  let mostOfA = 0;
  let mostPerUrl = 0;
  const sentTo = new Map<string, number>();
  let deliveredToB: number | undefined;
  const events = new EventBus();
  const dispatcher = createWebhookDispatcher({
    outbox: fake.outbox,
    events,
    config: config({
      concurrency: 8,
      perAccountConcurrency: 4,
      perEndpointConcurrency: 2,
      endpointCooldownMaxMs: 60_000,
    }),
    log: (message) => assert.fail(message),
    send: async (d) => {
      sentTo.set(d.url, (sentTo.get(d.url) ?? 0) + 1);
      if (d.accountId === 'B') {
        deliveredToB = Date.now();
        return { status: 200, latencyMs: 0 };
      }
      open.total += 1;
      open.byUrl.set(d.url, (open.byUrl.get(d.url) ?? 0) + 1);
      mostOfA = Math.max(mostOfA, open.total);
      mostPerUrl = Math.max(mostPerUrl, open.byUrl.get(d.url)!);
      await sleep(150); // the timeout
      open.total -= 1;
      open.byUrl.set(d.url, open.byUrl.get(d.url)! - 1);
      return { status: null, latencyMs: 150, error: 'no answer in time' };
    },
  });
  dispatcher.start();
  await sleep(50);
  const dueAt = Date.now();
  fake.add('B', 'http://healthy/');
  events.emit('delivery:due', {});
  await sleep(1200);
  await dispatcher.close(1000);

  assert.ok(
    deliveredToB !== undefined && deliveredToB - dueAt < 500,
    `B's delivery went at once (after ${deliveredToB === undefined ? 'never' : deliveredToB - dueAt} ms)`,
  );
  assert.ok(mostOfA <= 4, `A held at most its share of the slots (held ${mostOfA})`);
  assert.ok(mostPerUrl <= 2, `an endpoint held at most its cap (held ${mostPerUrl})`);
  // Two at first, then after a 2 s cool-down (two failures in a row) nothing more within the second.
  for (let i = 0; i < 3; i++)
    assert.ok(
      (sentTo.get(`http://silent/${i}`) ?? 0) <= 2,
      `a silent endpoint is not sent to while it cools down (${sentTo.get(`http://silent/${i}`)})`,
    );
  assert.equal(fake.pending.size, 150, "A's deliveries are all still pending");
  const attempts = [...fake.pending.values()].reduce((sum, d) => sum + d.attempts.length, 0);
  assert.equal(
    attempts,
    [...sentTo.entries()].filter(([url]) => url.startsWith('http://silent/')).reduce((sum, [, n]) => sum + n, 0),
    'each send journaled once',
  );
});

test('a cooled-down endpoint gets one probe; its answer ends the cool-down and the rest flow again', async () => {
  const fake = fakeOutbox();
  for (let i = 0; i < 6; i++) fake.add('A', 'http://flaky/');
  let answering = false;
  const sends: { at: number; answered: boolean }[] = [];
  const started = Date.now();
  const dispatcher = createWebhookDispatcher({
    outbox: fake.outbox,
    events: new EventBus(),
    config: config({
      concurrency: 8,
      perAccountConcurrency: 4,
      perEndpointConcurrency: 2,
      endpointCooldownMaxMs: 60_000,
    }),
    log: (message) => assert.fail(message),
    send: async () => {
      sends.push({ at: Date.now() - started, answered: answering });
      return answering ? { status: 200, latencyMs: 0 } : { status: null, latencyMs: 0, error: 'refused' };
    },
  });
  dispatcher.start();
  await sleep(300);
  assert.equal(sends.length, 2, 'the first two are refused, then it cools down');
  answering = true;
  while (fake.pending.size > 0) await sleep(10);
  await dispatcher.close(1000);
  const afterCooling = sends.slice(2);
  assert.ok(
    afterCooling[0].at >= 1900,
    `the probe waits out the cool-down (2 s after two failures; went at ${afterCooling[0].at} ms)`,
  );
  assert.equal(sends.length, 8, 'six delivered, two refused first');
});
