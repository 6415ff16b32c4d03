import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { StoreCorruptError } from '../../../../../src/store/file/journal/journal-reader.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { StoreLockedError } from '../../../../../src/store/file/lock.js';
import { tempDir } from '../../../../helpers/temp-dir.js';
import { crashImage } from '../store-files.js';

const at = '2026-11-22T08:00:00.000Z';
const account = (n: number) => ({ id: `acc_${n}`, name: `user${n}`, balance: 0, createdAt: at, updatedAt: at });

async function fill(store: JsonStore, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, n) => store.accounts.create(account(n))));
  for (let n = 0; n < count; n += 3) {
    await store.accounts.credit({
      id: `crd_${n}`,
      accountId: `acc_${n}`,
      amount: 1000 + n,
      note: 'seed',
      createdAt: at,
    });
  }
  await store.apiKeys.create(
    {
      id: 'key_1',
      accountId: 'acc_0',
      hash: 'h1',
      preview: 'mak_x',
      scopes: ['tasks:read'],
      spendingLimitPeriod: 'month',
      createdAt: at,
    },
    { maxLive: 100 },
  );
  await store.apiKeys.revoke('key_1', at);
}

const dump = (store: JsonStore) => store.engine.state.collections().map((c) => [c.name, c.capture()]);

test('replaying the journal reproduces the state exactly', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotOnClose: false });
  await fill(first, 50);
  const before = dump(first);
  await first.close();
  assert.equal(
    (await readdir(dir)).includes('snapshot.json'),
    false,
    'no snapshot was written, so this is a pure replay',
  );

  const second = await JsonStore.open({ dir });
  assert.deepEqual(dump(second), before);
  assert.equal((await second.accounts.get('acc_3'))?.balance, 1003);
  assert.equal(await second.apiKeys.getLiveByHash('h1'), undefined, 'the revoked key stays revoked');
  await second.close();
});

test('snapshot plus journal tail reproduces the state, and cuts leave no old journal behind', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotEveryBytes: 4096, snapshotOnClose: false });
  await fill(first, 200);
  await first.engine.snapshot();
  await first.accounts.create(account(999));
  const before = dump(first);
  await first.close();
  const files = await readdir(dir);
  assert.ok(files.includes('snapshot.json'));
  assert.equal(files.includes('journal.old.jsonl'), false);

  const second = await JsonStore.open({ dir });
  assert.deepEqual(dump(second), before);
  await second.close();
});

test('a start after a cut whose snapshot never landed folds both journals into a snapshot', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotOnClose: false });
  await fill(first, 20);
  await first.close();
  // Simulate a crash right after the cut: the old journal exists, the new one has a record.
  const { rename } = await import('node:fs/promises');
  await rename(join(dir, 'journal.jsonl'), join(dir, 'journal.old.jsonl'));
  const second = await JsonStore.open({ dir, snapshotOnClose: false });
  await second.accounts.create(account(500));
  const before = dump(second);
  await second.close();
  assert.equal((await readdir(dir)).includes('journal.old.jsonl'), false);

  const third = await JsonStore.open({ dir });
  assert.deepEqual(dump(third), before);
  await third.close();
});

test('a torn last record is dropped and every record before it survives', async (t) => {
  const dir = await tempDir(t);
  const logs: string[] = [];
  // A crash mid-write: the checkpoint has not caught up with the last records yet.
  const first = await JsonStore.open({ dir, snapshotOnClose: false, checkpointEveryMs: 60_000 });
  await fill(first, 10);
  const image = await crashImage(t, dir);
  await first.close();
  const journal = join(image, 'journal.jsonl');
  const text = await readFile(journal, 'utf8');
  const lines = text.trimEnd().split('\n');
  // Cut the last record in half, as a crash mid-write would.
  await writeFile(journal, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 25)}`);

  const second = await JsonStore.open({ dir: image, log: (m) => logs.push(m), snapshotOnClose: false });
  assert.equal(second.engine.lastSeq, lines.length - 1);
  assert.equal((await second.accounts.list()).length, 10);
  assert.equal((await second.apiKeys.get('key_1'))?.revokedAt, undefined, 'the dropped record was the revoke');
  assert.match(logs.join('\n'), /dropped 1 bad line after the last good record \(seq \d+\), from line \d+/);
  // New writes append after the good records, not after the garbage.
  await second.accounts.create(account(77));
  await second.close();
  const third = await JsonStore.open({ dir: image });
  assert.equal((await third.accounts.get('acc_77'))?.name, 'user77');
  await third.close();
});

test('a flipped byte mid-journal refuses start-up naming the file and the record', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotOnClose: false });
  await fill(first, 10);
  await first.close();
  const journal = join(dir, 'journal.jsonl');
  const bytes = await readFile(journal);
  const lines = bytes.toString('utf8').split('\n');
  const offset = lines.slice(0, 4).join('\n').length + 1 + 30; // inside line 5
  bytes[offset] ^= 0x01;
  await writeFile(journal, bytes);

  await assert.rejects(JsonStore.open({ dir }), (err: unknown) => {
    assert.ok(err instanceof StoreCorruptError);
    assert.match(err.message, /journal\.jsonl: record at line 5 \(seq 5\)/);
    assert.match(err.message, /checksum mismatch/);
    return true;
  });
  assert.deepEqual(await readFile(journal), bytes, 'the corrupt file is left untouched');
  await assert.rejects(access(join(dir, 'LOCK')), 'the lock is released after a refused start');
});

test('a second writer on the same data dir is refused', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir });
  await assert.rejects(
    JsonStore.open({ dir }),
    (err: unknown) => err instanceof StoreLockedError && err.pid === process.pid,
  );
  await first.close();
  const again = await JsonStore.open({ dir });
  await again.close();
});

test('a lock left by a dead process is taken over', async (t) => {
  const dir = await tempDir(t);
  const first = await JsonStore.open({ dir, snapshotOnClose: false });
  await fill(first, 10);
  const before = dump(first);
  await first.close();
  await writeFile(join(dir, 'LOCK'), '999999999\n'); // above Linux's pid_max: no such process

  const store = await JsonStore.open({ dir });
  assert.equal(await readFile(join(dir, 'LOCK'), 'utf8'), `${process.pid}\n`, 'the lock now names this process');
  assert.deepEqual(dump(store), before, 'the data is intact');
  await store.close();
  await assert.rejects(access(join(dir, 'LOCK')), 'closing releases the taken-over lock');
});

test('a writer killed with SIGKILL mid-burst loses none of the writes it acknowledged', async (t) => {
  const dir = await tempDir(t);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '../../../../fixtures/store-writer.ts'), dir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const acknowledged: string[] = [];
  let buffer = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('acc_')) acknowledged.push(line);
      // Past 3000 acknowledged writes the journal has been cut and snapshotted several times.
      if (acknowledged.length >= 3000) resolve();
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;

  const checkpoint = JSON.parse(await readFile(join(dir, 'journal.checkpoint'), 'utf8'));
  const store = await JsonStore.open({ dir });
  const missing = [];
  for (const id of acknowledged) if (!(await store.accounts.get(id))) missing.push(id);
  assert.deepEqual(missing, []);
  assert.ok((await store.accounts.list()).length >= acknowledged.length);
  assert.ok(checkpoint.seq <= store.engine.lastSeq, 'the checkpoint never claims more than the journal holds');
  await store.close();
});
