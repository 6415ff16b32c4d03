import assert from 'node:assert/strict';
import { access, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JournalEngine } from '../../../../../src/store/file/journal/journal-engine.js';
import { StoreCorruptError } from '../../../../../src/store/file/journal/journal-reader.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { tempDir } from '../../../../helpers/temp-dir.js';
import { crashImage, filesOf, journalLines } from '../store-files.js';

const at = '2026-11-22T08:00:00.000Z';
const account = (n: number) => ({ id: `acc_${n}`, name: `user${n}`, balance: 0, createdAt: at, updatedAt: at });
const checkpointSeq = async (dir: string): Promise<number> =>
  JSON.parse(await readFile(join(dir, 'journal.checkpoint'), 'utf8')).seq;

/** A stopped store holding accounts 1 to 10 (seq 1 to 10), with a snapshot at seq `snapshotAt` if given. */
async function stoppedStore(
  t: Parameters<typeof tempDir>[0],
  { snapshotAt }: { snapshotAt?: number } = {},
): Promise<string> {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, snapshotOnClose: false });
  for (let n = 1; n <= 10; n++) {
    await store.accounts.create(account(n));
    if (n === snapshotAt) await store.engine.snapshot();
  }
  await store.close();
  return dir;
}

/** Asserts that start is refused with a message matching every pattern, and that nothing changed. */
async function refusesStart(dir: string, ...patterns: RegExp[]): Promise<void> {
  const before = await filesOf(dir);
  await assert.rejects(JournalEngine.open({ dir }), (err: unknown) => {
    assert.ok(err instanceof StoreCorruptError, String(err));
    assert.match(err.message, /Refusing to start; the files are left untouched/);
    for (const pattern of patterns) assert.match(err.message, pattern);
    return true;
  });
  assert.deepEqual(await filesOf(dir), before, 'the files are left untouched');
  await assert.rejects(access(join(dir, 'LOCK')), 'the lock is released after a refused start');
}

test('a journal cut at a record boundary after acknowledged writes refuses start, naming the missing records', async (t) => {
  const dir = await stoppedStore(t);
  await writeFile(join(dir, 'journal.jsonl'), (await journalLines(dir)).slice(0, 6).join(''));
  await refusesStart(
    dir,
    /journal\.checkpoint says records up to seq 10 were written durably/,
    /records 7 to 10 are missing/,
    /journal\.jsonl: 6 records to seq 6/,
  );
});

test('an emptied journal refuses start', async (t) => {
  const dir = await stoppedStore(t);
  await truncate(join(dir, 'journal.jsonl'), 0);
  await refusesStart(dir, /records 1 to 10 are missing/, /journal\.jsonl is empty/, /no snapshot\.json/);
});

test('a deleted journal refuses start', async (t) => {
  const dir = await stoppedStore(t, { snapshotAt: 4 });
  await rm(join(dir, 'journal.jsonl'));
  await refusesStart(dir, /records 5 to 10 are missing/, /snapshot\.json at seq 4/, /journal\.jsonl is missing/);
});

test('a cut whose journal.old.jsonl is gone before its snapshot landed refuses start', async (t) => {
  const dir = await stoppedStore(t, { snapshotAt: 5 });
  // A crash right after the next cut left journal.old.jsonl and an empty journal; then the old one went.
  await rename(join(dir, 'journal.jsonl'), join(dir, 'journal.old.jsonl'));
  await writeFile(join(dir, 'journal.jsonl'), '');
  await rm(join(dir, 'journal.old.jsonl'));
  await refusesStart(dir, /records 6 to 10 are missing/, /snapshot\.json at seq 5/);
});

test('a snapshot deleted after a clean close refuses start', async (t) => {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir });
  for (let n = 1; n <= 10; n++) await store.accounts.create(account(n));
  await store.close();
  assert.equal((await readFile(join(dir, 'journal.jsonl'))).length, 0, 'the close snapshotted and cut the journal');
  await rm(join(dir, 'snapshot.json'));
  await refusesStart(dir, /records 1 to 10 are missing/, /no snapshot\.json/);
});

test('clean restarts, a fresh dir and an empty journal after a snapshot all start without a refusal', async (t) => {
  const dir = await tempDir(t);
  let n = 0;
  for (let round = 0; round < 4; round++) {
    const store = await JsonStore.open({ dir, snapshotOnClose: round % 2 === 0 });
    assert.equal(store.engine.lastSeq, n);
    for (let k = 0; k < 5; k++) await store.accounts.create(account(++n));
    await store.close();
    assert.equal(await checkpointSeq(dir), n, 'a clean close leaves an exact checkpoint');
  }
  const last = await JsonStore.open({ dir });
  assert.equal((await last.accounts.list()).length, n);
  await last.close();
  // The close above snapshotted: the journal is empty, so deleting it loses nothing.
  await rm(join(dir, 'journal.jsonl'));
  const again = await JsonStore.open({ dir });
  assert.equal((await again.accounts.list()).length, n);
  await again.close();
});

test('a store from before checkpoints starts as it did and gets a checkpoint', async (t) => {
  const dir = await stoppedStore(t, { snapshotAt: 3 });
  await rm(join(dir, 'journal.checkpoint'), { force: true });
  const logs: string[] = [];
  const store = await JournalEngine.open({ dir, log: (m) => logs.push(m) });
  assert.equal(store.lastSeq, 10);
  assert.equal(await checkpointSeq(dir), 10);
  assert.match(logs.join('\n'), /no journal\.checkpoint/);
  await store.close();
});

test('an unreadable checkpoint refuses start', async (t) => {
  const dir = await stoppedStore(t);
  await writeFile(join(dir, 'journal.checkpoint'), '{"format":"imgtask-journal-checkpoint","vers');
  await refusesStart(dir, /journal\.checkpoint: unreadable/);
});

test('the checkpoint follows acknowledged writes while the store runs, so a crash image cut short is refused', async (t) => {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, checkpointEveryMs: 20 });
  for (let n = 1; n <= 10; n++) await store.accounts.create(account(n));
  for (let waited = 0; (await checkpointSeq(dir)) < 10; waited += 10) {
    assert.ok(waited < 2000, 'the checkpoint caught up within its interval');
    await sleep(10);
  }
  const intact = await crashImage(t, dir);
  const cut = await crashImage(t, dir);
  await store.close();

  const restarted = await JsonStore.open({ dir: intact });
  assert.equal((await restarted.accounts.list()).length, 10);
  await restarted.close();
  await writeFile(join(cut, 'journal.jsonl'), (await journalLines(cut)).slice(0, 8).join(''));
  await refusesStart(cut, /records 9 to 10 are missing/);
});
