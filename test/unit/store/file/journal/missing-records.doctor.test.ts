import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { runCli } from '../../../../helpers/cli.js';
import { tempDir } from '../../../../helpers/temp-dir.js';
import { journalLines } from '../store-files.js';

const at = '2026-11-22T08:00:00.000Z';

test('imgtask doctor on a data dir whose journal was cut short exits 1 and names the missing records', async (t) => {
  const data = await tempDir(t);
  const dir = join(data, 'store');
  const store = await JsonStore.open({ dir, snapshotOnClose: false });
  for (let n = 1; n <= 4; n++)
    await store.accounts.create({ id: `acc_${n}`, name: `user${n}`, balance: 0, createdAt: at, updatedAt: at });
  await store.close();
  await writeFile(join(dir, 'journal.jsonl'), (await journalLines(dir)).slice(0, 1).join(''));

  const doctor = await runCli(['--data', data, 'doctor']);
  assert.equal(doctor.code, 1, doctor.stderr);
  assert.match(doctor.stderr, /journal\.checkpoint says records up to seq 4 were written durably/);
  assert.match(doctor.stderr, /records 2 to 4 are missing/);
  assert.match(doctor.stderr, /Refusing to start/);
});
