import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DueIndex } from '../../../../../src/store/file/indexes/due-index.js';
import type { DeliveryRecord } from '../../../../../src/store/records/webhooks.js';

const delivery = (
  id: string,
  nextAttemptAt: string | null,
  status: DeliveryRecord['status'] = 'pending',
): DeliveryRecord => ({
  id,
  eventId: 'evt_1',
  accountId: 'acc_1',
  webhookId: 'wh_1',
  url: 'http://example.com/',
  status,
  attempts: [],
  nextAttemptAt,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

test('keeps pending deliveries in due order (then id) through adds, updates and removes, past many blocks', () => {
  const index = new DueIndex();
  const live = new Map<string, DeliveryRecord>();
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const time = () => new Date(Date.parse('2026-01-01') + Math.floor(random() * 60_000)).toISOString();
  for (let step = 0; step < 12_000; step++) {
    const id = `dlv_${Math.floor(random() * 4000)}`;
    const old = live.get(id);
    const roll = random();
    if (!old) {
      const next = delivery(id, time());
      index.add(next);
      live.set(id, next);
    } else if (roll < 0.2) {
      index.remove(old);
      live.delete(id);
    } else {
      // An attempt: delivered, failed, or retried later; sometimes the same time again.
      const next =
        roll < 0.4
          ? { ...old, status: 'delivered' as const, nextAttemptAt: null }
          : roll < 0.5
            ? { ...old }
            : { ...old, nextAttemptAt: time() };
      index.update(old, next);
      live.set(id, next);
    }
  }
  const expected = [...live.values()]
    .filter((d) => d.status === 'pending' && d.nextAttemptAt)
    .map((d) => `${d.nextAttemptAt} ${d.id}`)
    .sort();
  const actual = [...index.entries()].map((e) => `${e.dueAt} ${e.id}`);
  assert.ok(expected.length > 1024, 'spans several blocks');
  assert.deepEqual(actual, expected);
});

test('a delivery that is not pending, or has no next attempt, is not in the order', () => {
  const index = new DueIndex();
  index.add(delivery('dlv_a', '2026-01-01T00:00:01.000Z', 'delivered'));
  index.add(delivery('dlv_b', null, 'failed'));
  index.add(delivery('dlv_c', '2026-01-01T00:00:02.000Z'));
  index.add(delivery('dlv_d', '2026-01-01T00:00:01.000Z'));
  assert.deepEqual(
    [...index.entries()].map((e) => e.id),
    ['dlv_d', 'dlv_c'],
  );
  index.clear();
  assert.deepEqual([...index.entries()], []);
});
