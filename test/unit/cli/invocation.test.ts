import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { howToRun, shellWord } from '../../../src/cli/invocation.js';
import { firstSteps, storeFlags } from '../../../src/cli/next-steps.js';
import { tempDir } from '../../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ENTRY = join(ROOT, 'bin', 'imgtask.js');

test('howToRun: the command a user types next, as it works where they are', async (t) => {
  const dir = await tempDir(t);
  const linked = join(dir, 'global-bin');
  const npmScript = join(dir, 'clone', 'node_modules', '.bin');
  const other = join(dir, 'other-bin');
  const project = join(dir, 'project');
  for (const folder of [linked, npmScript, other, join(project, 'node_modules', '.bin')])
    await mkdir(folder, { recursive: true });
  await symlink(ENTRY, join(linked, 'imgtask'));
  await symlink(ENTRY, join(npmScript, 'imgtask'));
  await writeFile(join(other, 'imgtask'), '#!/bin/sh\necho another imgtask\n');
  await symlink(ENTRY, join(project, 'node_modules', '.bin', 'imgtask'));

  const cases: Array<[string, { cwd: string; path: string; script?: string }, string]> = [
    ['npm link (or a global install): imgtask on PATH', { cwd: dir, path: `${other}:${linked}:/usr/bin` }, 'imgtask'],
    ["the clone's bin/ on PATH (the README's export)", { cwd: ROOT, path: `${join(ROOT, 'bin')}:/usr/bin` }, 'imgtask'],
    [
      'in the clone, only the PATH npm gives a script (npm start): node and the relative path',
      { cwd: ROOT, path: `${npmScript}:/usr/bin`, script: ENTRY },
      'node bin/imgtask.js',
    ],
    [
      'another program named imgtask on PATH is not this one',
      { cwd: ROOT, path: `${other}:/usr/bin`, script: ENTRY },
      'node bin/imgtask.js',
    ],
    [
      'a project that depends on imgtask: npx, which runs the installed one',
      { cwd: project, path: '/usr/bin' },
      'npx imgtask',
    ],
    ['outside the clone: node and the absolute path', { cwd: dir, path: '/usr/bin', script: ENTRY }, `node ${ENTRY}`],
    ['no PATH at all', { cwd: ROOT, path: '', script: undefined }, 'node bin/imgtask.js'],
  ];
  for (const [name, invocation, expected] of cases) {
    await t.test(name, () => {
      assert.equal(howToRun({ cwd: invocation.cwd, path: invocation.path, script: invocation.script }), expected);
    });
  }

  // A clone reached through a link keeps the path the user typed.
  const alias = join(dir, 'my-clone');
  await symlink(ROOT, alias);
  assert.equal(
    howToRun({ cwd: dir, path: '/usr/bin', script: join(alias, 'bin', 'imgtask.js') }),
    'node my-clone/bin/imgtask.js',
  );
  assert.equal(
    howToRun({ cwd: other, path: '/usr/bin', script: join(alias, 'bin', 'imgtask.js') }),
    `node ${join(alias, 'bin', 'imgtask.js')}`,
  );
  assert.equal(
    howToRun({ cwd: alias, path: '/usr/bin', script: join(alias, 'bin', 'imgtask.js') }),
    'node bin/imgtask.js',
  );
});

test('shellWord quotes only what a shell would split or expand', () => {
  assert.equal(shellWord('/srv/imgtask/data'), '/srv/imgtask/data');
  assert.equal(shellWord('/tmp/my data'), "'/tmp/my data'");
  assert.equal(shellWord("it's"), `'it'\\''s'`);
  assert.equal(shellWord('$HOME'), "'$HOME'");
});

test('first steps: --data only for a data dir other than ./data, --config when one was given, the comments in one column', () => {
  assert.equal(storeFlags('data', undefined, '/srv'), '');
  assert.equal(storeFlags('./data', undefined, '/srv'), '');
  assert.equal(storeFlags('/srv/data', undefined, '/srv'), '');
  assert.equal(storeFlags('/var/lib/imgtask', undefined, '/srv'), ' --data /var/lib/imgtask');
  assert.equal(storeFlags('my data', undefined, '/srv'), " --data 'my data'");
  assert.equal(storeFlags('data', 'pg.json', '/srv'), ' --config pg.json');

  const lines = firstSteps('node bin/imgtask.js', { data: '/var/lib/imgtask' }, '/srv/clone');
  assert.equal(lines[0], 'First start: the data dir is new. To get going, in another terminal in /srv/clone:');
  assert.deepEqual(
    lines.slice(1).map((line) => line.split('   # ')[0].trim()),
    [
      'node bin/imgtask.js --data /var/lib/imgtask accounts create demo --credit 10',
      'export IMGTASK_API_KEY=$(node bin/imgtask.js --data /var/lib/imgtask keys create --account demo)',
      'node bin/imgtask.js --data /var/lib/imgtask generate "a lighthouse at dawn" --watch',
      'node bin/imgtask.js --data /var/lib/imgtask tokens issue --account demo',
    ],
  );
  assert.equal(new Set(lines.slice(1).map((line) => line.indexOf('#'))).size, 1, 'the comments line up');
  assert.match(
    firstSteps('imgtask', { data: 'data', config: '/etc/imgtask.json' }, '/srv')[1],
    /^ {2}imgtask --config \/etc\/imgtask\.json accounts create demo --credit 10 +# /,
  );
});
