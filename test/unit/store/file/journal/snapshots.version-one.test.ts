import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { StoreCorruptError } from '../../../../../src/store/file/journal/journal-reader.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import type { AccountRecord } from '../../../../../src/store/records/accounts.js';
import type { TaskRecord } from '../../../../../src/store/records/tasks.js';
import { tempDir } from '../../../../helpers/temp-dir.js';

const at = '2026-11-22T08:00:00.000Z';
const account: AccountRecord = { id: 'acc_1', name: 'acme', balance: 50_000, createdAt: at, updatedAt: at };
const task = (n: number, status: TaskRecord['status'] = 'completed'): TaskRecord => ({
  id: `tsk_${String(n).padStart(5, '0')}`,
  type: 'image.generate',
  status,
  accountId: 'acc_1',
  apiKeyId: n % 2 ? 'key_1' : null,
  request: { prompt: `ünïcode\tand "quotes" ${n}`, metadata: { order: `o-${n}` } },
  items: [{ status: 'success', cost: 100, result: { id: `img_${n}` }, attempts: 1 }],
  estimate: 100,
  cost: status === 'pending' ? 0 : 100,
  result: status === 'pending' ? null : { images: [{ id: `img_${n}` }] },
  eventId: 'none',
  createdAt: at,
  updatedAt: at,
});
const tasks = [task(0), task(1), task(2, 'pending'), task(3)];

/** A snapshot as version 1 wrote it: one JSON document, one record per line. */
function versionOne(seq: number, collections: Record<string, unknown[]>): string {
  const counts = Object.fromEntries(Object.entries(collections).map(([name, records]) => [name, records.length]));
  const header = JSON.stringify({ format: 'imgtask-snapshot', version: 1, seq, createdAt: at, counts });
  const bodies = Object.entries(collections).map(
    ([name, records]) =>
      `${JSON.stringify(name)}:[\n${records.map((r, i) => `${i ? ',' : ''}${JSON.stringify(r)}\n`).join('')}]`,
  );
  return `${header.slice(0, -1)},"collections":{\n${bodies.join(',\n')}\n}}\n`;
}

/** Opens the store, makes one change (so closing writes a snapshot) and closes it. */
async function openChangeClose(dir: string, n = 0): Promise<void> {
  const store = await JsonStore.open({ dir });
  await store.accounts.credit({ id: `crd_${n}`, accountId: 'acc_1', amount: 1, createdAt: at });
  await store.close();
}

const dump = (store: JsonStore) => store.engine.state.collections().map((c) => [c.name, c.capture()]);
const indexes = (store: JsonStore) => {
  const { state } = store.engine;
  return {
    ids: [...state.tasksByAccount.ids('acc_1')],
    pending: [...state.pendingTasks.ids],
    reserved: state.money.reserved('acc_1'),
    counts: [...state.tasksByStatus.counts],
  };
};

test('a store written by version 1 (one JSON document) still opens, and its next snapshot is version 2', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'snapshot.json'), versionOne(7, { accounts: [account], credits: [], apiKeys: [], tasks }));
  const first = await JsonStore.open({ dir });
  assert.deepEqual(await first.tasks.get('tsk_00002'), tasks[2]);
  assert.deepEqual(indexes(first), {
    ids: tasks.map((x) => x.id),
    pending: ['tsk_00002'],
    reserved: 100,
    counts: [
      ['completed', 3],
      ['pending', 1],
    ],
  });
  await first.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 1, createdAt: at });
  const before = dump(first);
  await first.close();
  assert.match(
    await readFile(join(dir, 'snapshot.json'), 'utf8'),
    /^\{"format":"imgtask-snapshot","version":2,"seq":8,/,
  );

  const second = await JsonStore.open({ dir });
  assert.deepEqual(dump(second), before);
  assert.deepEqual(indexes(second), {
    ids: tasks.map((x) => x.id),
    pending: ['tsk_00002'],
    reserved: 100,
    counts: [
      ['completed', 3],
      ['pending', 1],
    ],
  });
  await second.close();
});

test('a version 2 snapshot reopens to the same state, writing unread records back byte for byte', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'snapshot.json'), versionOne(4, { accounts: [account], tasks }));
  await openChangeClose(dir); // now version 2
  const v2 = await readFile(join(dir, 'snapshot.json'), 'utf8');

  const reopened = await JsonStore.open({ dir });
  const expected = {
    ids: tasks.map((x) => x.id),
    pending: ['tsk_00002'],
    reserved: 100,
    counts: [
      ['completed', 3],
      ['pending', 1],
    ],
  };
  assert.deepEqual(indexes(reopened), expected, 'indexes built from the record lines');
  await reopened.accounts.credit({ id: 'crd_2', accountId: 'acc_1', amount: 1, createdAt: at });
  await reopened.close(); // no task read: every one goes back as its line
  const rewritten = await readFile(join(dir, 'snapshot.json'), 'utf8');
  const taskLines = (text: string) => text.slice(text.indexOf('#"tasks"'));
  assert.ok(v2.includes('#"tasks"'));
  assert.equal(taskLines(rewritten), taskLines(v2));

  const third = await JsonStore.open({ dir });
  assert.deepEqual(await third.tasks.get('tsk_00001'), tasks[1]);
  await third.tasks.settle({ id: 'tsk_00002', status: 'completed', result: { images: [] }, cost: 60, at });
  assert.deepEqual(indexes(third), { ...expected, pending: [], reserved: 0, counts: [['completed', 4]] });
  await third.close();
  const fourth = await JsonStore.open({ dir });
  assert.equal((await fourth.tasks.get('tsk_00002'))?.cost, 60);
  assert.equal((await fourth.accounts.get('acc_1'))?.balance, 50_000 + 2 - 60);
  await fourth.close();
});

test('a damaged version 2 snapshot refuses to start and is left untouched', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'snapshot.json'), versionOne(4, { accounts: [account], tasks }));
  await openChangeClose(dir);
  const good = await readFile(join(dir, 'snapshot.json'));
  const cases: [string, Buffer, RegExp][] = [
    [
      'a record cut short',
      Buffer.from(good.toString('utf8').replace(/(\{"id":"tsk_00003"[^\n]*)[^\n]{5}\n/, '$1\n')),
      /line \d+: not a record line/,
    ],
    [
      'an unreadable record',
      Buffer.from(good.toString('utf8').replace('"id":"tsk_00001"', '"id":tsk_00001"')),
      /line \d+: unreadable record/,
    ],
    ['a cut file', good.subarray(0, good.length - 200), /ends without a newline|ends early/],
    ['a lost end marker', Buffer.from(good.toString('utf8').replace('#end\n', '')), /ends early/],
    [
      'a lost record',
      Buffer.from(good.toString('utf8').replace(/\n\{"id":"tsk_00001"[^\n]*/, '')),
      /collection tasks holds 3 records, expected 4/,
    ],
  ];
  for (const [what, bytes, message] of cases) {
    await writeFile(join(dir, 'snapshot.json'), bytes);
    await assert.rejects(
      JsonStore.open({ dir }),
      (err: Error) => err instanceof StoreCorruptError && message.test(err.message),
      what,
    );
    assert.deepEqual(await readFile(join(dir, 'snapshot.json')), bytes, `${what}: untouched`);
  }
});
