import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

test('doctor reports free space against store.minFreeBytes, and exits 1 below it', async (t) => {
  const data = await tempDir(t);
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const ok = await runCli(['--data', data, 'doctor']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(
    ok.stdout,
    /^storage ok: [\d.]+ [KMGT]iB free for store \(.+\), .+ free for images .+; store\.minFreeBytes 64\.0 MiB; writes taken$/m,
  );

  // A floor no disk here reaches: every folder is below it.
  const config = join(data, 'floor.json');
  await writeFile(config, JSON.stringify({ store: { minFreeBytes: 1e15 } }));
  const low = await runCli(['--data', data, '--config', config, 'doctor']);
  assert.equal(low.code, 1, low.stdout);
  assert.match(low.stdout, /^ledger ok/m, 'the ledger itself is fine');
  assert.match(low.stdout, /^storage LOW: .*store\.minFreeBytes 909\.5 TiB$/m);
  assert.match(
    low.stdout,
    /free for store, below store\.minFreeBytes \(909\.5 TiB\): new tasks and uploads are refused \(507 STORAGE_FULL\)/,
  );
  const json = (await runCli(['--data', data, '--config', config, 'doctor', '--json'])).json;
  assert.equal(json.storage.minFreeBytes, 1e15);
  assert.deepEqual(
    json.storage.folders.map((folder: { name: string }) => folder.name),
    ['store', 'images', 'videos'],
  );
  assert.equal(json.storage.writesRefused, null);
});
