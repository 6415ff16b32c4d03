import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAccountErase } from '../../../src/services/account-erase.js';
import { JsonStore } from '../../../src/store/file/json-store.js';
import { tempDir } from '../../helpers/temp-dir.js';

const clock = { now: () => Date.parse('2026-11-29T12:00:00.000Z') };

test('an erase whose compaction fails is not marked done: the next resume compacts again, then marks it erased', async (t) => {
  const store = await JsonStore.open({ dir: await tempDir(t) });
  t.after(() => store.close());
  await store.accounts.create({
    id: 'acc_1',
    name: 'acme',
    balance: 0,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
  });
  const realCompact = store.compact.bind(store);
  let compactions = 0;
  store.compact = async () => {
    compactions++;
    if (compactions === 1) throw new Error('killed while compacting');
    await realCompact();
  };
  const removal = {
    removeTaskData: async () => undefined,
    removeTask: async () => undefined,
    removeUploadData: async () => undefined,
  } as never;
  const erase = createAccountErase({ store, clock, removal, log: () => {} });

  await assert.rejects(erase.erase('acme'), /killed while compacting/);
  const half = await store.accounts.get('acc_1');
  assert.ok(half?.erasingSince, 'still marked as being erased');
  assert.equal(half?.erasedAt, undefined, 'not marked erased before its old journal is gone');
  assert.equal(half?.name, 'acc_1', 'the name already went');

  const reports = await erase.resumeAll();
  assert.equal(reports.length, 1);
  assert.equal(compactions, 2, 'the resumed erase compacted again');
  const done = await store.accounts.get('acc_1');
  assert.ok(done?.erasedAt);
  assert.equal(done?.erasingSince, undefined);
});
