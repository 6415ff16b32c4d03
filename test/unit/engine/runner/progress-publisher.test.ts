import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { createProgressPublisher } from '../../../../src/engine/runner/progress-publisher.js';
import type { ItemFractions } from '../../../../src/services/event-bus.js';

function publisher(t: TestContext, intervalMs = 250) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const sent: string[] = [];
  const fractions = new Map<string, ItemFractions>();
  const p = createProgressPublisher((taskId, f) => sent.push(`${taskId} ${JSON.stringify(f)}`), intervalMs);
  /** A report of `taskId`: its fractions now, and the publisher told. */
  const report = (taskId: string, f: ItemFractions) => {
    fractions.set(taskId, f);
    p.changed(taskId, () => fractions.get(taskId)!);
  };
  return { p, sent, report };
}

test('the first change goes out at once; those within the interval fold into one, sent at its end with the latest fractions', (t) => {
  const { sent, report } = publisher(t);
  report('tsk_a', { 0: 0.1 });
  assert.deepEqual(sent, ['tsk_a {"0":0.1}'], 'at once');
  report('tsk_a', { 0: 0.2 });
  report('tsk_a', { 0: 0.3, 1: 0.05 });
  t.mock.timers.tick(249);
  assert.equal(sent.length, 1, 'nothing more within the interval');
  t.mock.timers.tick(1);
  assert.deepEqual(
    sent,
    ['tsk_a {"0":0.1}', 'tsk_a {"0":0.3,"1":0.05}'],
    'the last value is delivered when the interval ends',
  );
  t.mock.timers.tick(10_000);
  assert.equal(sent.length, 2, 'one event for all the changes it folded');

  // Quiet for longer than the interval: the next change goes out at once again.
  report('tsk_a', { 0: 0.9 });
  assert.equal(sent.at(-1), 'tsk_a {"0":0.9}');
});

test('tasks are throttled each on its own: a busy one does not hold up another', (t) => {
  const { sent, report } = publisher(t);
  report('tsk_a', { 0: 0.1 });
  report('tsk_a', { 0: 0.2 });
  report('tsk_b', { 0: 0.5 });
  assert.deepEqual(sent, ['tsk_a {"0":0.1}', 'tsk_b {"0":0.5}']);
  t.mock.timers.tick(250);
  assert.deepEqual(sent, ['tsk_a {"0":0.1}', 'tsk_b {"0":0.5}', 'tsk_a {"0":0.2}']);
});

test('forget drops the event still due and the entry: nothing is sent for a settled task', (t) => {
  const { p, sent, report } = publisher(t);
  report('tsk_a', { 0: 0.1 });
  report('tsk_a', { 0: 0.2 });
  assert.equal(p.size(), 1);
  p.forget('tsk_a');
  assert.equal(p.size(), 0);
  t.mock.timers.tick(10_000);
  assert.deepEqual(sent, ['tsk_a {"0":0.1}']);
});
