import assert from 'node:assert/strict';
import { access, appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { StoreCorruptError } from '../../../../../src/store/file/journal/journal-reader.js';
import { encodeRecord } from '../../../../../src/store/file/journal/record.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { tempDir } from '../../../../helpers/temp-dir.js';
import { crashImage, filesOf, journalLines } from '../store-files.js';

const at = '2026-11-22T08:00:00.000Z';
const account = (n: number) => ({ id: `acc_${n}`, name: `user${n}`, balance: 0, createdAt: at, updatedAt: at });
const recordFor = (seq: number) => encodeRecord({ seq, t: 0, op: 'account.create', p: account(seq) });

/**
 * Ten acknowledged writes (seq 1 to 10) and what a crash right after them leaves: the
 * checkpoint has not caught up with them yet, as it would not within its interval.
 */
async function crashedAfterTenWrites(t: Parameters<typeof tempDir>[0]): Promise<string> {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, checkpointEveryMs: 60_000 });
  for (let n = 1; n <= 10; n++) await store.accounts.create(account(n));
  const image = await crashImage(t, dir);
  await store.close();
  return image;
}

async function opensAfterDroppingTail(dir: string, goodBytes: number, badLines: number) {
  const logs: string[] = [];
  const store = await JsonStore.open({ dir, log: (m) => logs.push(m), snapshotOnClose: false });
  assert.equal(store.engine.lastSeq, 10);
  assert.equal((await store.accounts.list()).length, 10, 'every good record is kept');
  assert.match(
    logs.join('\n'),
    new RegExp(
      `journal\\.jsonl: dropped ${badLines} bad lines after the last good record \\(seq 10\\), from line 11, byte offset ${goodBytes}`,
    ),
  );
  assert.equal((await readFile(join(dir, 'journal.jsonl'))).length, goodBytes, 'truncated to the last good record');
  await store.accounts.create(account(11));
  await store.close();
  const again = await JsonStore.open({ dir });
  assert.equal((await again.accounts.get('acc_11'))?.name, 'user11', 'new writes follow the good records');
  assert.equal(again.engine.lastSeq, 11);
  await again.close();
}

test('two bad lines after the last good record are a torn tail: dropped, logged, truncated', async (t) => {
  const dir = await crashedAfterTenWrites(t);
  const journal = join(dir, 'journal.jsonl');
  const goodBytes = (await readFile(journal)).length;
  // The batch in flight: record 11 landed with a damaged byte, record 12 only in part.
  const damaged = Buffer.from(recordFor(11));
  damaged[40] ^= 0x01;
  await appendFile(journal, Buffer.concat([damaged, Buffer.from(recordFor(12).slice(0, 30))]));
  await opensAfterDroppingTail(dir, goodBytes, 2);
});

test('three bad lines after the last good record, one of them zeros, are a torn tail too', async (t) => {
  const dir = await crashedAfterTenWrites(t);
  const journal = join(dir, 'journal.jsonl');
  const goodBytes = (await readFile(journal)).length;
  // What a power loss can leave of an unsynced batch: a page that never reached the disk
  // reads as zeros, a later one did.
  const damaged = Buffer.from(recordFor(11));
  damaged[40] ^= 0x01;
  const hole = Buffer.concat([Buffer.alloc(64), Buffer.from(recordFor(12).slice(50))]);
  await appendFile(journal, Buffer.concat([damaged, hole, Buffer.from(recordFor(13).slice(0, 20))]));
  await opensAfterDroppingTail(dir, goodBytes, 3);
});

test('bad lines with a good record after them refuse start, naming the first bad line, its offset and the good one', async (t) => {
  const dir = await crashedAfterTenWrites(t);
  const lines = await journalLines(dir);
  const offset = lines.slice(0, 4).join('').length;
  const damaged = `${lines[4].slice(0, 30)}X${lines[4].slice(31)}`;
  const torn = `${lines[5].slice(0, 20)}\n`;
  await writeFile(join(dir, 'journal.jsonl'), [...lines.slice(0, 4), damaged, torn, ...lines.slice(6)].join(''));
  const before = await filesOf(dir);

  await assert.rejects(JsonStore.open({ dir }), (err: unknown) => {
    assert.ok(err instanceof StoreCorruptError);
    assert.match(
      err.message,
      new RegExp(
        `journal\\.jsonl: record at line 5 \\(seq 5\\), byte offset ${offset}, is corrupt \\(checksum mismatch\\)`,
      ),
    );
    assert.match(err.message, /a good record follows at line 7 \(seq 7\)/);
    return true;
  });
  assert.deepEqual(await filesOf(dir), before, 'the files are left untouched');
  await assert.rejects(access(join(dir, 'LOCK')), 'the lock is released after a refused start');
});

test('a torn last record that the checkpoint says was durable refuses start: it was acknowledged', async (t) => {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, snapshotOnClose: false });
  for (let n = 1; n <= 10; n++) await store.accounts.create(account(n));
  await store.close();
  const lines = await journalLines(dir);
  await writeFile(join(dir, 'journal.jsonl'), `${lines.slice(0, -1).join('')}${lines.at(-1)!.slice(0, 25)}`);
  const before = await filesOf(dir);

  await assert.rejects(JsonStore.open({ dir }), (err: unknown) => {
    assert.ok(err instanceof StoreCorruptError);
    assert.match(err.message, /journal\.checkpoint says records up to seq 10 were written durably/);
    assert.match(err.message, /record 10 is missing/);
    assert.match(err.message, /then 1 bad line after the last good record \(seq 9\), from line 10/);
    return true;
  });
  assert.deepEqual(await filesOf(dir), before, 'the files are left untouched');
});
