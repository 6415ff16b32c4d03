import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClaimer } from '../../../../src/engine/intake/claimer.js';
import type { TaskRecord } from '../../../../src/engine/task-types.js';

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
    capacity: () => 4,
    leaseMs: () => 60_000,
    pollMs: 60_000,
    log: (message) => logged.push(message),
  });
  claimer.start();
  // The task has run and its release failed; the claim its end wakes gives the lease back first.
  await claimedAgain;
  assert.deepEqual(released, ['tsk_1']);
  assert.match(logged.join('\n'), /task tsk_1: lease not released \(the database cannot be reached right now\); given back with the next claim/);
  await claimer.close(async () => undefined);
  assert.deepEqual(released, ['tsk_1'], 'given back once');
});
