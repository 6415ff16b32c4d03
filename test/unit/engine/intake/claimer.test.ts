import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClaimer } from '../../../../src/engine/intake/claimer.js';
import type { TaskRecord } from '../../../../src/engine/task-registry.js';

const task = (id: string) => ({ id }) as TaskRecord;

test('a lease that could not be given back (the store was out of reach) is given back before the next claim, not left to expire', async () => {
  const released: string[] = [];
  const logged: string[] = [];
  let releaseFails = true;
  let claims = 0;
  let secondClaim: () => void = () => {};
  const claimedAgain = new Promise<void>((resolve) => (secondClaim = resolve));
  const claimer = createClaimer({
    leases: {
      async claim() {
        claims += 1;
        if (claims === 2) secondClaim();
        return claims === 1 ? [task('tsk_1')] : [];
      },
      async renew(ids) {
        return [...ids];
      },
      async release(id) {
        if (releaseFails) {
          releaseFails = false;
          throw new Error('the database cannot be reached right now');
        }
        released.push(id);
      },
    },
    run: async () => undefined,
    laneOf: () => 'L',
    wants: () => [{ lane: 'L', limit: 4 }],
    leaseMs: () => 60_000,
    pollMs: 60_000,
    log: (message) => logged.push(message),
  });
  claimer.start();
  // The task has run and its release failed; the next claim (a notification wakes it) gives the lease back first.
  await new Promise((resolve) => setImmediate(resolve));
  while (!logged.some((line) => line.includes('lease not released')))
    await new Promise((resolve) => setImmediate(resolve));
  claimer.wake();
  await claimedAgain;
  assert.deepEqual(released, ['tsk_1']);
  assert.match(
    logged.join('\n'),
    /task tsk_1: lease not released \(the database cannot be reached right now\); given back with the next claim/,
  );
  await claimer.close(async () => undefined);
  assert.deepEqual(released, ['tsk_1'], 'given back once');
});

/** A claimer over fake leases: `pending` is what the store holds; each claim takes up to its limit. */
function fakeClaimer(pending: TaskRecord[], capacity: number) {
  const claims: number[] = [];
  const finish = new Map<string, () => void>();
  const released: string[] = [];
  const claimer = createClaimer({
    leases: {
      async claim(wants) {
        const limit = wants.reduce((sum, want) => sum + want.limit, 0);
        const taken = pending.splice(0, limit);
        claims.push(taken.length);
        return taken;
      },
      renew: async (ids) => [...ids],
      async release(id) {
        released.push(id);
      },
    },
    run: (t) => new Promise<void>((resolve) => finish.set(t.id, resolve)),
    laneOf: () => 'L',
    // One lane: its room is the capacity less the tasks held (and promised) there.
    wants: (held) => [{ lane: 'L', limit: capacity - (held.get('L') ?? 0) }],
    leaseMs: () => 60_000,
    pollMs: 60_000,
    log: () => undefined,
  });
  return { claimer, claims, finish, released };
}

/** Turns of the event loop: what a finished task schedules has run by then. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test('a process whose claim found fewer tasks than it could take does not claim again when one of its tasks ends, only when woken', async () => {
  const { claimer, claims, finish, released } = fakeClaimer([task('tsk_1')], 4);
  claimer.start();
  await turns(3);
  assert.deepEqual(claims, [1]);
  finish.get('tsk_1')!();
  while (released.length === 0) await turns(1);
  await turns(5);
  assert.deepEqual(claims, [1], 'its slot freed, but nothing was left: no query');
  claimer.wake(); // a task was created
  await turns(3);
  assert.deepEqual(claims, [1, 0]);
  await claimer.close(async () => undefined);
});

test('a process whose claim filled its capacity claims again as its tasks end', async () => {
  const pending = ['tsk_1', 'tsk_2', 'tsk_3', 'tsk_4'].map(task);
  const { claimer, claims, finish, released } = fakeClaimer(pending, 2);
  claimer.start();
  await turns(3);
  assert.deepEqual(claims, [2]);
  finish.get('tsk_1')!();
  while (released.length === 0) await turns(1);
  await turns(3);
  assert.deepEqual(claims, [2, 1], 'the freed slot is filled');
  for (const end of finish.values()) end();
  await claimer.close(async () => undefined);
});

test('tasks created leased to this process (offer, adopt) run with no claim, count against its room, and give it back when not created', async () => {
  const { claimer, claims, finish, released } = fakeClaimer([], 2);
  claimer.start();
  await turns(3);
  assert.deepEqual(claims, [0], 'the claim at start found nothing');

  assert.equal(claimer.offer('L'), true);
  assert.equal(claimer.offer('L'), true);
  assert.equal(claimer.offer('L'), false, 'two promised fill a room of two');
  claimer.unused('L'); // one create failed
  assert.equal(claimer.offer('L'), true, 'the room of a create that failed is free again');

  claimer.adopt(task('tsk_a'), 'L');
  claimer.adopt(task('tsk_b'), 'L');
  await turns(3);
  assert.equal(claimer.held(), 2);
  assert.ok(finish.has('tsk_a') && finish.has('tsk_b'), 'both run');
  assert.equal(claimer.offer('L'), false, 'held tasks fill the room');
  assert.deepEqual(claims, [0], 'adopting queries nothing');

  finish.get('tsk_a')!();
  while (released.length === 0) await turns(1);
  assert.deepEqual(released, ['tsk_a'], 'its lease is given back once it has run');
  assert.equal(claimer.offer('L'), true, 'room again');
  claimer.unused('L');
  finish.get('tsk_b')!();
  await claimer.close(async () => undefined);
  assert.equal(claimer.offer('L'), false, 'a closing process takes nothing');
});
