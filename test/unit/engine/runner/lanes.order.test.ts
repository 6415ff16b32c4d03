import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { type FairItem, FairQueue } from '../../../../src/engine/runner/fair-queue.js';
import type { FleetKeySlots } from '../../../../src/engine/runner/key-gate.js';
import { type JobOwner, Lanes, type SlotGrant } from '../../../../src/engine/runner/lanes.js';

/**
 * The order a lane starts its queued items in (docs/scheduling.md): priority, then accounts
 * taking turns by weight, then arrival; per-key caps; model affinity; a slot freed when the
 * engine answers. Items here are held until the test ends them, so every start is observed.
 */
function lanesOf(options: { lane?: number; providers?: Record<string, number>; fleet?: FleetKeySlots } = {}) {
  const providers = Object.fromEntries(
    Object.entries(options.providers ?? {}).map(([name, concurrency]) => [name, { type: 'placeholder', concurrency }]),
  );
  const config = createConfigSource(
    loadConfig({
      env: {},
      overrides: { providers, work: { lanes: options.lane === undefined ? {} : { L: options.lane } } },
    }),
  );
  const lanes = new Lanes(config, { fleetKeySlots: options.fleet });
  /** Start order, as `label` (and the provider hinted, when any). */
  const started: string[] = [];
  const holding = new Map<string, { slot: SlotGrant; end(): void }>();
  const add = (lane: string, label: string, owner: Partial<JobOwner> & { account: string }, items = 1) =>
    lanes.runBatch(
      lane,
      Array.from(
        { length: items },
        (_, i) => (slot: SlotGrant) =>
          new Promise<boolean>((resolve) => {
            const name = items === 1 ? label : `${label}.${i}`;
            started.push(slot.provider ? `${name}@${slot.provider}` : name);
            holding.set(name, {
              slot,
              end: () => {
                holding.delete(name);
                resolve(true);
              },
            });
          }),
      ),
      { key: null, priority: 0, weight: 1, ...owner },
    );
  /** Ends the oldest running items, one at a time, until `count` more have started. */
  const drain = async (count: number) => {
    const target = started.length + count;
    while (started.length < target) {
      const [, running] = holding.entries().next().value!;
      running.end();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { lanes, started, holding, add, drain };
}

test('fair queue: a burst of one account does not hold up another; weights 3:1 share 3:1; priority goes first; O(log n) rank', () => {
  const queue = new FairQueue<FairItem>();
  let seq = 0;
  const item = (account: string, priority = 0): FairItem => ({ seq: ++seq, account, priority, tag: 0 });
  for (let i = 0; i < 60; i++) queue.push(item('A'), 1);
  // A has started 4 of its burst when B's one item arrives.
  for (let i = 0; i < 4; i++) {
    const first = queue.first()!;
    queue.delete(first);
    queue.started(first);
  }
  const b = item('B');
  queue.push(b, 1);
  assert.ok(queue.rank(b)! <= 1, `B's item waits for at most one of A's, not the burst: rank ${queue.rank(b)}`);
  const urgent = item('C', 5);
  queue.push(urgent, 1);
  assert.equal(queue.rank(urgent), 0, 'a higher priority starts first, across accounts');

  const shares = new FairQueue<FairItem>();
  for (let i = 0; i < 400; i++) {
    shares.push(item('heavy'), 3);
    shares.push(item('light'), 1);
  }
  const firstHundred: string[] = [];
  for (let i = 0; i < 100; i++) {
    const next = shares.first()!;
    shares.delete(next);
    shares.started(next);
    firstHundred.push(next.account);
  }
  const heavy = firstHundred.filter((a) => a === 'heavy').length;
  assert.ok(Math.abs(heavy / (100 - heavy) - 3) <= 0.3, `weights 3 and 1 start ${heavy}:${100 - heavy}`);
});

test('fair queue: accounts that come and go leave nothing behind once V passes them, and nothing at all once the lane is idle', () => {
  const queue = new FairQueue<FairItem>();
  let seq = 0;
  const item = (account: string): FairItem => ({ seq: ++seq, account, priority: 0, tag: 0 });
  const start = () => {
    const first = queue.first()!;
    queue.delete(first);
    queue.started(first);
    return first;
  };
  for (let i = 0; i < 3000; i++) queue.push(item('A'), 1);
  for (let n = 0; n < 1000; n++) {
    queue.push(item(`acc_${n}`), 1);
    start();
    start();
  }
  assert.ok(queue.accountsTracked <= 3, `finish tags kept while A's backlog runs: ${queue.accountsTracked}`);
  const late = item('acc_0');
  queue.push(late, 1);
  assert.ok(
    queue.rank(late)! <= 1,
    'a returning account does not wait behind a backlog that built up while it was away',
  );
  queue.reset();
  assert.equal(queue.accountsTracked, 0);
});

test('a lane starts accounts in turns, items of one account in arrival order, a higher priority first', async () => {
  const s = lanesOf({ lane: 1 });
  s.add('L', 'a1', { account: 'A' });
  s.add('L', 'a2', { account: 'A' });
  s.add('L', 'a3', { account: 'A' });
  s.add('L', 'b1', { account: 'B' });
  s.add('L', 'b2', { account: 'B' });
  s.add('L', 'p', { account: 'B', priority: 3 });
  await s.drain(5);
  assert.deepEqual(s.started, ['a1', 'p', 'b1', 'a2', 'b2', 'a3']);
  s.lanes.stop();
});

test("a key with maxConcurrent runs at most that many items at once, across lanes; the account's other keys go on", async () => {
  const s = lanesOf({ lane: 4 });
  const capped = { account: 'A', key: 'key_1', maxConcurrent: 2 };
  s.add('L', 'k', capped, 4);
  s.add('M', 'm', capped, 2);
  s.add('L', 'free', { account: 'A', key: 'key_2' }, 2);
  await new Promise((resolve) => setImmediate(resolve));
  const running = () => [...s.holding.keys()].filter((name) => name.startsWith('k.') || name.startsWith('m.')).length;
  assert.equal(running(), 2, `key_1 runs 2 at once across lanes L and M: ${[...s.holding.keys()]}`);
  assert.ok(s.holding.has('free.0') && s.holding.has('free.1'), 'key_2 of the same account is not held up');
  assert.equal(s.lanes.stats().L.queued, 2, 'parked items still count as queued');
  await s.drain(4);
  assert.equal(running(), 2);
  s.lanes.stop();
});

test('a fleet-wide slot refused parks the item and asks again; granted, it is given back when the item ends', async () => {
  let free = 0;
  const granted: string[] = [];
  const fleet: FleetKeySlots = {
    async acquire(key) {
      if (free === 0) return null;
      free -= 1;
      granted.push(key);
      return () => {
        free += 1;
      };
    },
  };
  const s = lanesOf({ lane: 2, fleet });
  s.add('L', 'k', { account: 'A', key: 'key_1', maxConcurrent: 1 });
  s.add('L', 'other', { account: 'B' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(s.started, ['other'], 'the fleet had no slot: the capped item waits, the lane runs others');
  free = 1;
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.deepEqual(s.started, ['other', 'k'], 'asked again, and granted');
  s.holding.get('k')!.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(free, 1, 'the fleet slot is given back when the item ends');
  s.lanes.stop();
});

test('a slot released when the engine answers starts the next item while the first is still storing', async () => {
  const s = lanesOf({ lane: 1 });
  s.add('L', 'first', { account: 'A' });
  s.add('L', 'second', { account: 'A' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.started, ['first']);
  s.holding.get('first')!.slot.release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.started, ['first', 'second'], 'the second starts though the first has not ended');
  s.lanes.stop();
});

test('model affinity: with two servers and two models alternating, each server keeps its model', async () => {
  const s = lanesOf({ providers: { gpu1: 1, gpu2: 1 } });
  for (let i = 0; i < 8; i++)
    s.add('gpu1+gpu2', `${i % 2 === 0 ? 'x' : 'y'}${i}`, {
      account: 'A',
      affinity: i % 2 === 0 ? 'model-x' : 'model-y',
    });
  await s.drain(6);
  const server = (label: string) => label.split('@')[1];
  const xs = s.started.filter((label) => label.startsWith('x')).map(server);
  const ys = s.started.filter((label) => label.startsWith('y')).map(server);
  assert.equal(new Set(xs).size, 1, `model-x stays on one server: ${s.started}`);
  assert.equal(new Set(ys).size, 1, `model-y stays on one server: ${s.started}`);
  assert.notEqual(xs[0], ys[0]);
  s.lanes.stop();
});

test('model affinity never leaves a server idle while work waits: one model only keeps both servers busy', async () => {
  const s = lanesOf({ providers: { gpu1: 1, gpu2: 1 } });
  s.add('gpu1+gpu2', 'warm', { account: 'A', affinity: 'model-y' });
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 4; i++) s.add('gpu1+gpu2', `x${i}`, { account: 'A', affinity: 'model-x' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(s.holding.size, 2, 'the idle server takes model-x at once');
  s.holding.get('warm')!.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(s.holding.size, 2, 'the server that ran model-y takes model-x rather than idle');
  s.lanes.stop();
});

test('an operator pause holds queued items and lets running ones finish; resume starts them; a dropped batch leaves the order', async () => {
  const s = lanesOf({ lane: 1 });
  s.add('L', 'running', { account: 'A' });
  await new Promise((resolve) => setImmediate(resolve));
  s.lanes.setPaused(['L']);
  const queued = s.add('L', 'waits', { account: 'A' });
  const dropped = s.add('L', 'dropped', { account: 'B' });
  s.holding.get('running')!.end();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.started, ['running'], 'paused: nothing new starts');
  assert.equal(s.lanes.stats().L.paused, true);
  assert.equal(dropped.batch.queuePosition(), 0, "B has had no turn yet: its item is ahead of A's second");
  assert.equal(queued.batch.queuePosition(), 1);
  s.lanes.drop(dropped.batch);
  await dropped.jobs[0];
  assert.equal(s.lanes.stats().L.queued, 1, 'the dropped item is gone from the lane');
  assert.equal(queued.batch.queuePosition(), 0, 'and no longer counts ahead of anyone');
  s.lanes.setPaused([]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.started, ['running', 'waits']);
  s.lanes.stop();
});
