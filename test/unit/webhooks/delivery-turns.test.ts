import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliveryRecord } from '../../../src/store/records.js';
import { DeliveryTurns, type SlotLimits } from '../../../src/webhooks/delivery-turns.js';
import { EndpointBackoff } from '../../../src/webhooks/endpoint-backoff.js';

let made = 0;
/** A due delivery of `accountId` to `url`, named `name` so an order reads plainly. */
function delivery(name: string, accountId: string, url: string): DeliveryRecord {
  const at = new Date(Date.parse('2026-01-01') + made++).toISOString();
  return {
    id: name,
    eventId: `evt_${name}`,
    accountId,
    webhookId: null,
    url,
    status: 'pending',
    attempts: [],
    nextAttemptAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

const limits = (slots: number, perAccount: number, perEndpoint: number): SlotLimits => ({
  slots,
  perAccount,
  endpointCap: () => perEndpoint,
});
const names = (list: DeliveryRecord[]) => list.map((d) => d.id);

test('accounts take turns, one delivery a turn, whatever the order they fell due in', () => {
  const queue = new DeliveryTurns();
  queue.add([
    ...Array.from({ length: 6 }, (_, i) => delivery(`a${i}`, 'A', `http://a/${i}`)),
    delivery('b0', 'B', 'http://b/'),
    delivery('b1', 'B', 'http://b/'),
    delivery('c0', 'C', 'http://c/'),
  ]);
  assert.deepEqual(names(queue.take(limits(5, 8, 2))), ['a0', 'b0', 'c0', 'a1', 'b1']);
  assert.equal(queue.sending, 5);
  assert.equal(queue.size, 4);
});

test('a slot that frees goes to the account served longest ago (one new to the queue first)', () => {
  const queue = new DeliveryTurns();
  const a = Array.from({ length: 10 }, (_, i) => delivery(`a${i}`, 'A', `http://a/${i}`));
  queue.add(a);
  const l = limits(2, 8, 2);
  assert.deepEqual(names(queue.take(l)), ['a0', 'a1']);
  // B's delivery falls due behind A's backlog; the next free slot is B's.
  queue.add([delivery('b0', 'B', 'http://b/')]);
  queue.finished(a[0]);
  assert.deepEqual(names(queue.take(l)), ['b0']);
  queue.finished(a[1]);
  assert.deepEqual(names(queue.take(l)), ['a2']);
});

test('an account holds at most its share of the slots, even with nobody else waiting', () => {
  const queue = new DeliveryTurns();
  queue.add(Array.from({ length: 10 }, (_, i) => delivery(`a${i}`, 'A', `http://a/${i}`)));
  assert.deepEqual(names(queue.take(limits(8, 4, 2))), ['a0', 'a1', 'a2', 'a3']);
  queue.add([delivery('b0', 'B', 'http://b/')]);
  assert.deepEqual(names(queue.take(limits(8, 4, 2))), ['b0'], 'the slots A may not hold are there for B');
});

test('an endpoint holds at most its cap; the account takes its next delivery to another endpoint', () => {
  const queue = new DeliveryTurns();
  const x = Array.from({ length: 5 }, (_, i) => delivery(`x${i}`, 'A', 'http://x/'));
  queue.add([...x, delivery('y0', 'A', 'http://y/')]);
  assert.deepEqual(names(queue.take(limits(8, 8, 2))), ['x0', 'x1', 'y0']);
  assert.deepEqual(names(queue.take(limits(8, 8, 2))), [], 'nothing more while x is at its cap');
  queue.finished(x[0]);
  assert.deepEqual(names(queue.take(limits(8, 8, 2))), ['x2'], 'in due order once a slot of x frees');
});

test('an endpoint cooling down is passed over and keeps its deliveries; a probe goes when the cool-down ends', () => {
  let now = 0;
  const backoff = new EndpointBackoff(() => now);
  const queue = new DeliveryTurns();
  const l: SlotLimits = { slots: 8, perAccount: 8, endpointCap: (url) => backoff.cap(url, 2) };
  queue.add([delivery('x0', 'A', 'http://x/'), delivery('x1', 'A', 'http://x/'), delivery('y0', 'A', 'http://y/')]);
  backoff.unanswered('http://x/', 60_000);
  assert.deepEqual(names(queue.take(l)), ['y0']);
  assert.equal(backoff.nextEnd(queue.endpoints()), 1000);
  now = 1000;
  assert.deepEqual(names(queue.take(l)), ['x0'], 'one probe, not the whole cap');
  assert.equal(queue.size, 1, 'x1 still waits, in its place');
});
