import assert from 'node:assert/strict';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonStore } from '../../../src/store/file/json-store.js';
import { removeTempFiles } from '../../../src/store/temp-files.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('the sweep removes temp files older than the bound in the shard folders, and leaves younger ones and real files', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'ab'));
  await mkdir(join(root, 'cd'));
  const old = (Date.now() - 2 * 3_600_000) / 1000;
  for (const name of ['ab/img_a.png.tmp', 'cd/img_b.webp.tmp']) {
    await writeFile(join(root, name), '');
    await utimes(join(root, name), old, old);
  }
  await writeFile(join(root, 'ab', 'img_c.png.tmp'), 'a write under way');
  await writeFile(join(root, 'ab', 'img_d.png'), 'an image');
  assert.equal(await removeTempFiles(root, 3_600_000, 1), 2);
  assert.deepEqual((await readdir(root, { recursive: true })).sort(), ['ab', 'ab/img_c.png.tmp', 'ab/img_d.png', 'cd']);
  assert.equal(await removeTempFiles(join(root, 'missing'), 0), 0);
});

test('opening the store removes the temp files an interrupted write left in its folder', async (t) => {
  const dir = await tempDir(t);
  const logs: string[] = [];
  await (await JsonStore.open({ dir })).close();
  await writeFile(join(dir, 'snapshot.json.tmp'), 'half a snapshot');
  await writeFile(join(dir, 'journal.checkpoint.tmp'), '');
  const store = await JsonStore.open({ dir, log: (m) => logs.push(m) });
  t.after(() => store.close());
  assert.deepEqual(
    (await readdir(dir)).filter((name) => name.endsWith('.tmp')),
    [],
  );
  assert.ok(
    logs.some((m) => /removed 2 temp file/.test(m)),
    logs.join('\n'),
  );
});
