import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANNELS, DISPATCH_LOCK, electDispatcher, SWEEP_LOCK, underLock } from '../../../../src/engine/intake/fleet-signals.js';
import { PgStore } from '../../../../src/store/postgres/index.js';
import { migratedSchema } from '../../store/store-backends.js';

/** Signals between processes on one database (each PgStore stands for a process: its own pool and connection). */
async function processes(t: import('node:test').TestContext, n: number): Promise<PgStore[]> {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const stores = await Promise.all(Array.from({ length: n }, (_, i) => PgStore.open({ url, poolSize: 2, applicationName: `signals-${i}` })));
  for (const store of stores) closers.push(() => store.close());
  return stores;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a notification reaches every listening process, the sender included', async (t) => {
  const [a, b] = await processes(t, 2);
  const heard: string[] = [];
  await a.shared.signals.listen(CHANNELS.settled, (id) => heard.push(`a:${id}`));
  await b.shared.signals.listen(CHANNELS.settled, (id) => heard.push(`b:${id}`));
  await a.shared.signals.notify(CHANNELS.settled, 'tsk_1');
  for (let i = 0; i < 50 && heard.length < 2; i++) await sleep(20);
  assert.deepEqual(heard.sort(), ['a:tsk_1', 'b:tsk_1']);
});

test('the sweep lock runs its work in one process at a time; a lock is freed when its holder closes', async (t) => {
  const [a, b] = await processes(t, 2);
  let inside = 0;
  let most = 0;
  const work = async () => {
    inside++;
    most = Math.max(most, inside);
    await sleep(100);
    inside--;
    return 'swept';
  };
  const outcomes = await Promise.all([underLock(a.shared.signals, SWEEP_LOCK, work), underLock(b.shared.signals, SWEEP_LOCK, work)]);
  assert.equal(most, 1, 'never two sweeps at once');
  assert.deepEqual(outcomes.map((o) => o.ran).sort(), [false, true]);
  assert.deepEqual(await underLock(b.shared.signals, SWEEP_LOCK, async () => 'again'), { ran: true, value: 'again' }, 'released after the run');

  assert.equal(await a.shared.signals.tryLock(DISPATCH_LOCK), true);
  assert.equal(await a.shared.signals.tryLock(DISPATCH_LOCK), true, 'the holder asking again still holds it');
  assert.equal(await b.shared.signals.tryLock(DISPATCH_LOCK), false);
  await a.close(); // its connection ends: the server frees the lock
  assert.equal(await b.shared.signals.tryLock(DISPATCH_LOCK), true);
});

test('one dispatcher across processes; when its process goes, another takes over', async (t) => {
  const [a, b] = await processes(t, 2);
  const started: string[] = [];
  const make = (name: string) => () => ({ start: () => started.push(name), close: async () => undefined });
  const first = electDispatcher(a.shared.signals, make('a'), () => undefined);
  await sleep(200);
  const second = electDispatcher(b.shared.signals, make('b'), () => undefined);
  await sleep(200);
  assert.deepEqual(started, ['a']);
  assert.equal(second.dispatching(), false);
  await first.close(0);
  await second.close(0);
  const third = electDispatcher(b.shared.signals, make('b'), () => undefined);
  await sleep(200);
  assert.deepEqual(started, ['a', 'b'], 'the lock given up is taken by the next process');
  await third.close(0);
});
