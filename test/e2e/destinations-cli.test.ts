import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

test('imgtask destinations create|list|show|update|test|delete', async (t) => {
  const data = await tempDir(t);
  const root = await tempDir(t);
  const config = join(data, 'imgtask.json');
  await writeFile(config, JSON.stringify({ destinations: { local: { allowedRoots: [root] } } }));
  const cli = (...args: string[]) => runCli(['--data', data, '--config', config, ...args]);
  await cli('accounts', 'create', 'acme');
  const created = await cli(
    'destinations',
    'create',
    '--account',
    'acme',
    '--name',
    'disk',
    '--provider',
    'local',
    '--settings',
    JSON.stringify({ path: join(root, 'images') }),
    '--json',
  );
  assert.equal(created.code, 0, created.stderr);
  const { id } = created.json;
  assert.equal(created.json.config.path, join(root, 'images'));
  assert.deepEqual(
    (await cli('destinations', 'list', '--account', 'acme', '--json')).json.map((d: { name: string }) => d.name),
    ['disk'],
  );
  const tested = await cli('destinations', 'test', id, '--json');
  assert.equal(tested.code, 0, tested.stderr);
  assert.equal(tested.json.deleted, true, 'the test object is written, then deleted');
  await assert.rejects(readFile(join(root, 'images', tested.json.key)), { code: 'ENOENT' });
  assert.equal((await cli('destinations', 'update', id, '--name', 'archive', '--json')).json.name, 'archive');
  assert.equal((await cli('destinations', 'show', id, '--json')).json.name, 'archive');
  const outside = await cli(
    'destinations',
    'create',
    '--account',
    'acme',
    '--name',
    'etc',
    '--provider',
    'local',
    '--settings',
    '{"path":"/etc"}',
  );
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /allowedRoots/);
  assert.equal(
    (
      await cli(
        'destinations',
        'create',
        '--account',
        'acme',
        '--name',
        'x',
        '--provider',
        'local',
        '--settings',
        'not json',
      )
    ).code,
    2,
  );
  assert.equal((await cli('destinations', 'delete', id)).code, 0);
  assert.equal((await cli('destinations', 'show', id)).code, 2);
});
