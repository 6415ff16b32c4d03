import assert from 'node:assert/strict';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { chooseServer } from '../../../src/cli/server-discovery.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('chooseServer: --url or IMGTASK_URL, else the server running on the data dir, else the default with the servers running elsewhere named', async (t) => {
  const runtime = await tempDir(t);
  const saved = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = runtime;
  t.after(() => {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
  });
  const root = await realpath(await tempDir(t));
  const data = join(root, 'data');
  await mkdir(data);
  await symlink(data, join(root, 'linked'));
  // The registry entry a server on `data` writes; its pid must be alive: the parent of this test process.
  await mkdir(join(runtime, 'imgtask-servers'), { mode: 0o700 });
  await writeFile(
    join(runtime, 'imgtask-servers', `${process.ppid}.json`),
    JSON.stringify({ pid: process.ppid, dataDir: data, url: 'http://127.0.0.1:9000' }),
  );

  assert.deepEqual(await chooseServer({ data, url: 'http://10.0.0.1:8080' }), {
    url: 'http://10.0.0.1:8080',
    unreachableHint: '(--url or IMGTASK_URL names the server)',
  });
  const found = await chooseServer({ data });
  assert.equal(found.url, 'http://127.0.0.1:9000');
  assert.equal(
    found.unreachableHint,
    `(the server of the data dir ${data}, pid ${process.ppid}; --url or IMGTASK_URL names the server)`,
  );
  assert.equal(
    (await chooseServer({ data: join(root, 'linked') })).url,
    'http://127.0.0.1:9000',
    'another path to the same data dir',
  );
  const other = await chooseServer({ data: join(root, 'other') });
  assert.equal(other.url, 'http://127.0.0.1:8080');
  assert.match(
    other.unreachableHint,
    new RegExp(
      `; a server is running on another data dir: ${data} \\(pid ${process.ppid}, http://127\\.0\\.0\\.1:9000\\), reached with imgtask --data ${data} …$`,
    ),
  );
});
