import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JournalWriter } from '../../../../../src/store/file/journal/journal-writer.js';
import { tempDir } from '../../../../helpers/temp-dir.js';

test('lines queued in one tick go out as one batch, in order', async (t) => {
  const dir = await tempDir(t);
  const writer = await JournalWriter.open(join(dir, 'j.jsonl'), join(dir, 'j.old.jsonl'));
  await Promise.all(Array.from({ length: 100 }, (_, n) => writer.append(`${n}\n`)));
  await writer.close();
  assert.equal(await readFile(join(dir, 'j.jsonl'), 'utf8'), Array.from({ length: 100 }, (_, n) => `${n}\n`).join(''));
});

test('a cut puts earlier lines in the old file and later ones in the new file', async (t) => {
  const dir = await tempDir(t);
  const writer = await JournalWriter.open(join(dir, 'j.jsonl'), join(dir, 'j.old.jsonl'));
  const before = writer.append('a\n');
  const cut = writer.rotate();
  const after = writer.append('b\n');
  await Promise.all([before, cut, after]);
  await writer.close();
  assert.equal(await readFile(join(dir, 'j.old.jsonl'), 'utf8'), 'a\n');
  assert.equal(await readFile(join(dir, 'j.jsonl'), 'utf8'), 'b\n');
  assert.equal(writer.bytes, 2);
});

test('a failed cut rejects its waiters and every later write instead of hanging', async (t) => {
  const dir = await tempDir(t);
  const sub = join(dir, 'store');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(sub);
  const writer = await JournalWriter.open(join(sub, 'j.jsonl'), join(sub, 'j.old.jsonl'));
  t.after(() => writer.close());
  await writer.append('a\n');
  await rm(sub, { recursive: true });
  const cut = writer.rotate();
  const queued = writer.append('b\n');
  await assert.rejects(cut);
  await assert.rejects(queued);
  assert.ok(writer.failed);
  await assert.rejects(writer.append('c\n'), 'a failed writer refuses further writes');
});
