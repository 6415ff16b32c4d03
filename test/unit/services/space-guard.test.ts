import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '../../../src/domain/errors.js';
import { createSpaceGuard } from '../../../src/services/space-guard.js';

const FLOOR = 1000;

/** A guard over folders whose free bytes the test sets; counts the readings taken. */
function guard() {
  const disk = { free: 10 * FLOOR, readings: 0, clock: 0 };
  const space = createSpaceGuard({
    readings: async () => {
      disk.readings += 1;
      return [
        { name: 'store', path: '/data/store', freeBytes: disk.free },
        { name: 'images', path: '/data/images', freeBytes: disk.free },
      ];
    },
    minFreeBytes: () => FLOOR,
    writeFailure: () => null,
    now: () => disk.clock,
  });
  return { space, disk };
}

const refused = async (admit: Promise<void>) => {
  try {
    await admit;
    return false;
  } catch (err) {
    assert.ok(isAppError(err) && err.code === 'STORAGE_FULL', String(err));
    return true;
  }
};

test('with twice the floor free everywhere, creates reuse the reading for a second; below that margin every create reads', async () => {
  const { space, disk } = guard();
  await space.admit();
  await space.admit();
  disk.clock = 999;
  await space.admit();
  assert.equal(disk.readings, 1, 'one reading for the creates of a second');
  disk.clock = 1000;
  disk.free = 1.5 * FLOOR; // above the floor, under twice it
  await space.admit();
  assert.equal(disk.readings, 2, 'read again once the second is over');
  await space.admit();
  await space.admit();
  assert.equal(disk.readings, 4, 'near the floor, every create reads');
  disk.free = FLOOR - 1;
  assert.equal(await refused(space.admit()), true, 'below the floor: refused at once');
  assert.equal(await refused(space.admit()), true);
  disk.free = 10 * FLOOR;
  await space.admit();
  assert.equal(disk.readings, 7);
});

test('/ready always reads, and what it reads steers the creates after it', async () => {
  const { space, disk } = guard();
  await space.admit();
  disk.free = 0; // the disk fills within the second
  assert.deepEqual(await space.problems(), [
    'storage: 0 bytes free for store, below store.minFreeBytes (1000 bytes)',
    'storage: 0 bytes free for images, below store.minFreeBytes (1000 bytes)',
  ]);
  assert.equal(await refused(space.admit()), true, 'the reading /ready took ends the reuse');
});
