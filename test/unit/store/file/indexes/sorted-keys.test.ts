import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeByTime, TimeOrderIndex } from '../../../../../src/store/file/indexes/sorted-keys.js';

interface Row {
  id: string;
  group: string;
  time: string;
  kept: boolean;
}

const index = () => new TimeOrderIndex<Row>((row) => (row.kept ? { group: row.group, time: row.time } : undefined));

function seeded(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const expectedOf = (rows: Iterable<Row>, group: string, before: string) =>
  [...rows]
    .filter((row) => row.kept && row.group === group && row.time < before)
    .map((row) => `${row.time} ${row.id}`)
    .sort();
const walk = (order: TimeOrderIndex<Row>, group: string, before: string) =>
  [...order.before(group, before)].map((entry) => `${entry.time} ${entry.id}`);

test('keeps each group in time order (then id) through loads, adds, updates and removes, past many blocks', () => {
  const random = seeded(11);
  const time = () => new Date(Date.parse('2026-01-01') + Math.floor(random() * 60_000)).toISOString();
  const order = index();
  const live = new Map<string, Row>();
  // Start-up: loaded in any order, sorted once.
  for (let n = 0; n < 3000; n++) {
    const row = { id: `r_${n}`, group: random() < 0.8 ? 'a' : 'b', time: time(), kept: random() < 0.9 };
    order.load(row);
    live.set(row.id, row);
  }
  order.loaded();
  for (let step = 0; step < 8000; step++) {
    const id = `r_${Math.floor(random() * 4000)}`;
    const old = live.get(id);
    const roll = random();
    if (!old) {
      const row = { id, group: roll < 0.5 ? 'a' : 'b', time: time(), kept: true };
      order.add(row);
      live.set(id, row);
    } else if (roll < 0.2) {
      order.remove(old);
      live.delete(id);
    } else {
      const next = roll < 0.4 ? { ...old, kept: !old.kept } : roll < 0.5 ? { ...old } : { ...old, time: time() };
      order.update(old, next);
      live.set(id, next);
    }
  }
  const end = '2026-01-01T00:00:30.000Z';
  assert.ok(expectedOf(live.values(), 'a', '9999').length > 1024, 'spans several blocks');
  for (const group of ['a', 'b', 'none']) {
    assert.deepEqual(walk(order, group, '9999'), expectedOf(live.values(), group, '9999'), `group ${group}`);
    assert.deepEqual(walk(order, group, end), expectedOf(live.values(), group, end), `group ${group} before ${end}`);
  }
});

test('a record removed between load and loaded (an id met twice at start-up) leaves no key behind', () => {
  const order = index();
  const first = { id: 'r_1', group: 'a', time: '2026-01-01T00:00:01.000Z', kept: true };
  order.load(first);
  order.load({ id: 'r_2', group: 'a', time: '2026-01-01T00:00:02.000Z', kept: true });
  order.update(first, { ...first, time: '2026-01-01T00:00:03.000Z' });
  order.loaded();
  assert.deepEqual(
    [...order.before('a', '9999')].map((entry) => `${entry.time} ${entry.id}`),
    ['2026-01-01T00:00:02.000Z r_2', '2026-01-01T00:00:03.000Z r_1'],
  );
});

test('mergeByTime merges two ascending walks by time, then id', () => {
  const entries = (...keys: [string, string][]) => keys.map(([time, id]) => ({ time, id }))[Symbol.iterator]();
  const merged = [
    ...mergeByTime(
      entries(['1', 'b'], ['3', 'a'], ['5', 'a']),
      entries(['1', 'a'], ['2', 'z'], ['5', 'b'], ['6', 'c']),
    ),
  ];
  assert.deepEqual(
    merged.map((entry) => `${entry.time}${entry.id}`),
    ['1a', '1b', '2z', '3a', '5a', '5b', '6c'],
  );
  assert.deepEqual([...mergeByTime(entries(), entries())], []);
});
