import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Collection } from '../../../../src/store/file/collection.js';
import { OrderedGroupIndex } from '../../../../src/store/file/indexes/by-key.js';
import { encodeRecordLine, parseRecordLine, parseRecordStub } from '../../../../src/store/file/record-line.js';
import { State } from '../../../../src/store/file/state.js';
import type { TaskRecord } from '../../../../src/store/records/tasks.js';

const task = (
  n: number,
  change: {
    account: number;
    status: TaskRecord['status'];
    cost: number;
    key: number | null;
    day: number;
    event: boolean;
  },
): TaskRecord => ({
  id: `tsk_${String(n).padStart(4, '0')}`,
  type: 'image.generate',
  status: change.status,
  accountId: `acc_${change.account}`,
  apiKeyId: change.key === null ? null : `key_${change.key}`,
  request: { prompt: 'p', metadata: { n: String(n) } },
  items: [{ status: 'pending', cost: 0, attempts: 0 }] as TaskRecord['items'],
  estimate: 1000,
  cost: change.status === 'pending' ? 0 : change.cost,
  result: null,
  ...(change.event ? { eventId: 'none' } : {}),
  createdAt: new Date(Date.parse('2026-01-01') + change.day * 43_200_000).toISOString(),
  updatedAt: '2026-02-01T00:00:00.000Z',
});

const change = fc.record({
  account: fc.integer({ min: 0, max: 2 }),
  status: fc.constantFrom<TaskRecord['status']>('pending', 'completed', 'failed'),
  cost: fc.constantFrom(0, 400, 1000),
  key: fc.option(fc.integer({ min: 0, max: 1 })),
  day: fc.integer({ min: 0, max: 20 }),
  event: fc.boolean(),
});

/** Everything the task indexes hold, as plain data. */
function taskIndexes(state: State) {
  return {
    byAccount: [0, 1, 2].map((a) => [...state.tasksByAccount.ids(`acc_${a}`)]),
    pending: [...state.pendingTasks.ids].sort(),
    withoutEvent: [...state.settledWithoutEvent.ids].sort(),
    byStatus: new Map([...state.tasksByStatus.counts].sort()),
    reserved: new Map([...state.money.reservedByAccount].sort()),
    spend: new Map([...state.money.spendByKeyPeriod].sort()),
  };
}

/** A state whose task indexes lack `update`, so the collection removes and re-adds as it used to. */
function removeAndAddState(): State {
  const state = new State();
  for (const index of [
    state.tasksByAccount,
    state.pendingTasks,
    state.money,
    state.settledWithoutEvent,
    state.tasksByStatus,
  ]) {
    Object.defineProperty(index, 'update', { value: undefined });
  }
  return state;
}

test('update() leaves every task index as remove-then-add would, over random puts and deletes', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), change, fc.boolean()), { maxLength: 80 }),
      (steps) => {
        const incremental = new State();
        const reference = removeAndAddState();
        for (const [n, c, remove] of steps) {
          for (const state of [incremental, reference]) {
            if (remove) state.tasks.delete(task(n, c).id);
            else state.tasks.put(task(n, c));
          }
        }
        assert.deepEqual(taskIndexes(incremental), taskIndexes(reference));
      },
    ),
    { numRuns: 300 },
  );
});

test('an update that keeps the account moves nothing in the ordered index', () => {
  const state = new State();
  const base = { account: 1, key: 0, day: 0, event: false, cost: 0 };
  for (let n = 0; n < 5; n++) state.tasks.put(task(n, { ...base, status: 'pending' }));
  const ids = state.tasksByAccount.ids('acc_1');
  state.tasks.put(task(2, { ...base, status: 'completed', cost: 400 }));
  assert.equal(state.tasksByAccount.ids('acc_1'), ids, 'the same array');
  assert.deepEqual([...ids], ['tsk_0000', 'tsk_0001', 'tsk_0002', 'tsk_0003', 'tsk_0004']);
  assert.equal(state.money.reserved('acc_1'), 4000);
});

test('a bulk load in any order gives the same index as adding one by one', () => {
  const ids = Array.from({ length: 500 }, (_, n) => `tsk_${String((n * 7919) % 500).padStart(4, '0')}`);
  const loaded = new OrderedGroupIndex<{ id: string; g: string }>((r) => r.g);
  const added = new OrderedGroupIndex<{ id: string; g: string }>((r) => r.g);
  for (const id of ids) {
    loaded.load({ id, g: id.endsWith('1') ? 'a' : 'b' });
    added.add({ id, g: id.endsWith('1') ? 'a' : 'b' });
  }
  loaded.loaded();
  assert.deepEqual(loaded.ids('a'), added.ids('a'));
  assert.deepEqual(loaded.ids('b'), added.ids('b'));
  assert.deepEqual(added.ids('b'), [...added.ids('b')].sort());
});

test('a record line parses back to the record, and its stub holds exactly the top-level primitive fields', () => {
  const record = task(3, { account: 0, status: 'failed', cost: 0, key: null, day: 2, event: true });
  const line = encodeRecordLine(record);
  assert.equal(line.includes('\n'), false);
  assert.deepEqual(parseRecordLine(line), record);
  const { request, items, result, ...primitives } = record;
  assert.deepEqual(parseRecordStub(line), { ...primitives, result: null });
  assert.deepEqual(parseRecordLine(encodeRecordLine({ id: 'x', tab: 'a\tb' })), { id: 'x', tab: 'a\tb' });
  assert.deepEqual(parseRecordLine(encodeRecordLine({ id: 'x', nested: { a: [1] } })), { id: 'x', nested: { a: [1] } });
});

test('a collection loaded from record lines answers and indexes as one loaded from records', () => {
  const records = Array.from({ length: 40 }, (_, n) =>
    task(n, {
      account: n % 3,
      status: n % 4 ? 'completed' : 'pending',
      cost: 400,
      key: n % 2,
      day: n % 5,
      event: n % 3 === 0,
    }),
  );
  const fromLines = new State();
  const fromRecords = new State();
  const chunk = Buffer.from(records.map((r) => `${encodeRecordLine(r)}\n`).join(''));
  let start = 0;
  for (const record of records) {
    const end = chunk.indexOf(10, start);
    fromLines.tasks.loadLine(chunk, start, end);
    fromRecords.tasks.load(record);
    start = end + 1;
  }
  fromLines.tasks.loaded();
  fromRecords.tasks.loaded();
  assert.deepEqual(taskIndexes(fromLines), taskIndexes(fromRecords));
  assert.deepEqual(fromLines.tasks.capture(), records);
  // Updating and deleting records never read: the indexes see their stubs.
  const settled = { ...records[4], status: 'completed' as const, cost: 1000 };
  for (const state of [fromLines, fromRecords]) {
    state.tasks.put(settled);
    state.tasks.delete(records[8].id);
  }
  assert.deepEqual(taskIndexes(fromLines), taskIndexes(fromRecords));
  assert.equal(fromLines.tasks.get(records[5].id), fromLines.tasks.get(records[5].id), 'parsed once, then kept');
  const unread = new Collection<TaskRecord>('tasks');
  unread.loadLine(chunk, 0, chunk.indexOf(10));
  assert.deepEqual(
    [...unread.captureEntries()],
    [encodeRecordLine(records[0])],
    'an unread record goes back to a snapshot as its line',
  );
});
