import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeRecord, encodeRecordLine } from '../../../../../src/store/file/journal/record.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import type { TaskRecord } from '../../../../../src/store/records/tasks.js';
import { tempDir } from '../../../../helpers/temp-dir.js';

const at = '2026-11-22T08:00:00.000Z';

const task = (id: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  id,
  type: 'image.rate',
  status: 'pending',
  accountId: 'acc_1',
  apiKeyId: null,
  request: { urls: ['https://example.test/a.png'], metadata: { order: 7 } },
  items: [{ status: 'pending' }],
  estimate: 500,
  cost: 0,
  result: null,
  createdAt: at,
  updatedAt: at,
  ...extra,
});

test('a record line built from the payload JSON is byte for byte the line of the whole record', () => {
  const record = {
    seq: 12,
    t: 1_700_000_000_000,
    op: 'task.item',
    p: { id: 'tsk_1', index: 0, item: { status: 'success', cost: 5 }, at },
  };
  assert.equal(encodeRecordLine(record.seq, record.t, record.op, JSON.stringify(record.p)), encodeRecord(record));
});

test('the live state built from payload objects equals the state replayed from their JSON', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotOnClose: false, verifyPayloads: true });
  await first.accounts.create({ id: 'acc_1', name: 'one', balance: 10_000, createdAt: at, updatedAt: at });
  await first.tasks.create(task('tsk_1'), {});
  await first.tasks.recordItem('tsk_1', 0, { status: 'success', cost: 400, result: { level: 'sfw' }, attempts: 1 }, at);
  await first.tasks.settle({
    id: 'tsk_1',
    status: 'completed',
    result: { results: [{ level: 'sfw' }] },
    cost: 400,
    at,
  });
  const live = first.engine.state.collections().map((c) => [c.name, c.capture()]);
  await first.close();

  const replayed = await JsonStore.open({ dir });
  t.after(() => replayed.close());
  assert.deepStrictEqual(
    replayed.engine.state.collections().map((c) => [c.name, c.capture()]),
    live,
  );
});

test('with verifyPayloads a payload that JSON would change is refused before it touches the state', async (t) => {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, verifyPayloads: true });
  t.after(() => store.close());
  await store.accounts.create({ id: 'acc_1', name: 'one', balance: 10_000, createdAt: at, updatedAt: at });
  // `undefined` inside an array reads back from JSON as null: live and replayed state would differ.
  await assert.rejects(
    store.tasks.create(task('tsk_2', { result: [undefined] }), {}),
    /task\.create payload does not survive JSON unchanged/,
  );
  assert.equal(await store.tasks.get('tsk_2'), undefined);
});
