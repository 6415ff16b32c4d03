import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../src/services/event-bus.js';
import { createWebhookDispatcher } from '../../../src/webhooks/dispatcher.js';
import type { DeliveryRecord, Outbox } from '../../../src/webhooks/outbox.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An in-memory outbox with the dispatcher's side of the real one: due order, attempts recorded after `journalMs`. */
function fakeOutbox(count: number, journalMs: number) {
  const now = Date.now();
  const pending = new Map<string, DeliveryRecord>();
  for (let i = 0; i < count; i++) {
    const at = new Date(now - count + i).toISOString();
    const id = `dlv_${String(i).padStart(6, '0')}`;
    pending.set(id, {
      id,
      eventId: `evt_${i}`,
      accountId: 'acc',
      webhookId: 'wh',
      url: 'http://x/',
      status: 'pending',
      attempts: [],
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    });
  }
  const recorded: string[] = [];
  let largestRead = 0;
  const outbox = {
    async due(at: number, limit: number, inFlight: ReadonlySet<string>) {
      const next = [...pending.values()].filter((d) => !inFlight.has(d.id)).slice(0, limit + 1);
      largestRead = Math.max(largestRead, next.length);
      const due = next.filter((d) => Date.parse(d.nextAttemptAt!) <= at).slice(0, limit);
      return { due, nextAt: next.length > due.length ? Date.parse(next[due.length].nextAttemptAt!) : null };
    },
    async message(d: DeliveryRecord) {
      return { id: d.eventId, body: '{}' };
    },
    async recordAttempt(d: DeliveryRecord) {
      await sleep(journalMs);
      pending.delete(d.id);
      recorded.push(d.id);
      return { ...d, status: 'delivered' as const };
    },
  };
  return { outbox: outbox as unknown as Outbox, pending, recorded, largestRead: () => largestRead };
}

const config = (concurrency: number) =>
  ({ current: () => ({ webhooks: { concurrency } }), onChange: () => () => undefined }) as never;

test('drains a backlog once each, in due order, never more sends at once than the concurrency, reading only a few ahead', async () => {
  const fake = fakeOutbox(2000, 3);
  const sent: string[] = [];
  let active = 0;
  let most = 0;
  const dispatcher = createWebhookDispatcher({
    outbox: fake.outbox,
    events: new EventBus(),
    config: config(4),
    log: (message) => assert.fail(message),
    send: async (d) => {
      active += 1;
      most = Math.max(most, active);
      sent.push(d.id);
      await sleep(0);
      active -= 1;
      return { status: 200, latencyMs: 0 };
    },
  });
  dispatcher.start();
  while (fake.pending.size > 0) await sleep(5);
  await dispatcher.close(1000);
  assert.equal(sent.length, 2000);
  assert.equal(new Set(sent).size, 2000, 'each delivery sent once');
  assert.deepEqual(sent, [...sent].sort(), 'earliest due first');
  assert.ok(most <= 4, `at most 4 sends at once (saw ${most})`);
  assert.ok(fake.largestRead() <= 9, `reads a few at a time, not the backlog (read ${fake.largestRead()})`);
});

test('close waits, within the grace, for attempts being journaled; nothing new is taken after', async () => {
  const fake = fakeOutbox(50, 80);
  let sends = 0;
  const dispatcher = createWebhookDispatcher({
    outbox: fake.outbox,
    events: new EventBus(),
    config: config(2),
    log: (message) => assert.fail(message),
    send: async () => {
      sends += 1;
      return { status: 200, latencyMs: 0 };
    },
  });
  dispatcher.start();
  while (sends < 2) await sleep(1);
  await dispatcher.close(1000);
  const sentAtClose = sends;
  assert.equal(fake.recorded.length, sentAtClose, 'every attempt sent before close was journaled');
  await sleep(100);
  assert.equal(sends, sentAtClose, 'nothing sent after close');
});
