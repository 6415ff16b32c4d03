import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  announcer,
  bridgeEvents,
  CHANNELS,
  DISPATCH_LOCK,
  electDispatcher,
  SWEEP_LOCK,
  underLock,
} from '../../../../src/engine/intake/fleet-signals.js';
import { EventBus } from '../../../../src/services/event-bus.js';
import { PgStore } from '../../../../src/store/postgres/postgres-store.js';
import type { TaskRecord } from '../../../../src/store/records.js';
import { migratedSchema } from '../../store/store-backends.js';

/** Signals between processes on one database (each PgStore stands for a process: its own pool and connection). */
async function processes(t: import('node:test').TestContext, n: number): Promise<PgStore[]> {
  const closers: (() => Promise<void>)[] = [];
  const url = await migratedSchema(t, closers);
  const stores = await Promise.all(
    Array.from({ length: n }, (_, i) => PgStore.open({ url, poolSize: 2, applicationName: `signals-${i}` })),
  );
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
  const outcomes = await Promise.all([
    underLock(a.shared.signals, SWEEP_LOCK, work),
    underLock(b.shared.signals, SWEEP_LOCK, work),
  ]);
  assert.equal(most, 1, 'never two sweeps at once');
  assert.deepEqual(outcomes.map((o) => o.ran).sort(), [false, true]);
  assert.deepEqual(
    await underLock(b.shared.signals, SWEEP_LOCK, async () => 'again'),
    { ran: true, value: 'again' },
    'released after the run',
  );

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

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('what is announced in one turn goes out as one notification, split only to stay under the payload limit', async () => {
  const sent: string[] = [];
  const settled = announcer({ notify: async (_channel, payload) => void sent.push(payload) }, CHANNELS.settled, {
    separator: ' ',
    failed: () => undefined,
  });
  const ids = Array.from({ length: 300 }, (_, n) => `tsk_${String(n).padStart(22, '0')}`);
  for (const id of ids) settled.add(id);
  await turn();
  await turn();
  assert.equal(sent.length, 2, '300 ids of 26 characters: two payloads under 8000 bytes');
  assert.ok(sent.every((payload) => Buffer.byteLength(payload) < 8000));
  assert.deepEqual(sent.join(' ').split(' '), ids);
});

test('settlements and items recorded in one process reach the others, each task once, however many share a notification', async (t) => {
  const [a, b] = await processes(t, 2);
  const here = new EventBus();
  const there = new EventBus();
  const stops = [
    await bridgeEvents(a.shared.signals, here, () => undefined),
    await bridgeEvents(b.shared.signals, there, () => undefined),
  ];
  t.after(() => {
    for (const stop of stops) stop();
  });
  const settledThere: string[] = [];
  const itemsThere: string[] = [];
  there.on('task:settled-elsewhere', ({ taskId }) => settledThere.push(taskId));
  there.on('task:item-elsewhere', ({ taskId, finished }) => itemsThere.push(`${taskId}:${finished}`));
  const ids = Array.from({ length: 120 }, (_, n) => `tsk_${n}`);
  for (const id of ids) {
    here.emit('task:settled', { kind: 'task.image.generate.completed', task: { id } as TaskRecord });
    here.emit('task:item', { task: { id, items: [{ status: 'success' }, { status: 'pending' }] } as TaskRecord });
  }
  for (let i = 0; i < 100 && (settledThere.length < 120 || itemsThere.length < 120); i++) await sleep(20);
  assert.deepEqual(settledThere, ids);
  assert.deepEqual(
    itemsThere,
    ids.map((id) => `${id}:1`),
  );
});
