import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/**
 * Operator commands run from a folder with no data dir: a read (or a write that needs records
 * already made) never creates one, it fails naming the path it looked at; a write that may start
 * one says on stderr that it did. Each run gets its own registry of running servers
 * (XDG_RUNTIME_DIR), so servers of other tests on the machine do not show.
 */

/** A folder to run in (its real path: the CLI names the data dir it resolved) and a private registry. */
async function setting(t: Parameters<typeof tempDir>[0]) {
  const cwd = await realpath(await tempDir(t));
  const env = { XDG_RUNTIME_DIR: await tempDir(t) };
  return { cwd, env, run: (...args: string[]) => runCli(args, env, { cwd }) };
}

const READS: string[][] = [
  ['webhooks', 'show', 'wh_0000000000000000000000'],
  ['accounts', 'list'],
  ['keys', 'list', '--account', 'demo'],
  ['doctor'],
  ['usage', '--account', 'demo'],
  ['store', 'export', 'dump.jsonl'],
  // Writes that need an account or a record: nothing to write to in a new data dir.
  ['keys', 'create', '--account', 'demo'],
  ['tokens', 'issue', '--account', 'demo'],
];

test('with no data dir, a read fails naming the path and how to point at one, and creates nothing', async (t) => {
  const { cwd, run } = await setting(t);
  const expected = `imgtask: DATA_DIR_NOT_FOUND: no data dir at ${join(cwd, 'data')}: name the right one with --data DIR or IMGTASK_DATA=DIR\n`;
  for (const args of READS) {
    const result = await run(...args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.equal(result.stderr, expected, args.join(' '));
    assert.equal(result.stdout, '', args.join(' '));
  }
  assert.deepEqual(await readdir(cwd), [], 'nothing was created');

  const json = await run('accounts', 'list', '--json');
  assert.equal(json.code, 2);
  assert.equal(json.json.error.code, 'DATA_DIR_NOT_FOUND');

  // The same with the path given: --data, and IMGTASK_DATA.
  const elsewhere = join(cwd, 'nowhere');
  for (const result of [
    await run('--data', elsewhere, 'doctor'),
    await runCli(['doctor'], { IMGTASK_DATA: elsewhere }, { cwd }),
  ]) {
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`^imgtask: DATA_DIR_NOT_FOUND: no data dir at ${elsewhere}: `));
  }
  assert.equal(existsSync(elsewhere), false);
});

test('a write that may start a data dir creates it and says so on stderr, and where; the next command works on it quietly', async (t) => {
  const { cwd, run } = await setting(t);
  const data = join(cwd, 'data');
  const created = await run('accounts', 'create', 'demo', '--credit', '10');
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^created acc_\S+ {2}demo {2}balance 10/);
  assert.equal(
    created.stderr,
    `imgtask: created a new data dir at ${data}; to work on another, name it with --data DIR or IMGTASK_DATA=DIR\n`,
  );
  assert.ok(existsSync(join(data, 'keys')));

  const listed = await run('accounts', 'list', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    listed.json.map((a: { name: string }) => a.name),
    ['demo'],
  );
  assert.equal(listed.stderr, '', 'an existing data dir is used without a word');

  // secrets set may come before the first start too.
  const other = join(cwd, 'other');
  const secret = await run('--data', other, 'secrets', 'set', 'PROVIDER_KEY', '--value', 'sk-test');
  assert.equal(secret.code, 0, secret.stderr);
  assert.equal(
    secret.stderr,
    `imgtask: created a new data dir at ${other}; to work on another, name it with --data DIR or IMGTASK_DATA=DIR\n`,
  );
});

test('with a server running on another data dir, the messages name it; once it stops (or dies), they do not', async (t) => {
  const { cwd, env, run } = await setting(t);
  const served = await realpath(await tempDir(t));
  const serve = await startServeProcess(['--data', served], env);
  serve.child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => serve.child.once('exit', () => resolve()));
  closeBeforeRemoval(served, async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    await exited;
  });
  const hint = `a server is running on another data dir: ${served} (pid ${serve.child.pid}, ${serve.url}), reached with imgtask --data ${served} …`;

  const read = await run('webhooks', 'show', 'wh_0000000000000000000000');
  assert.equal(read.code, 2, read.stderr);
  assert.equal(
    read.stderr,
    `imgtask: DATA_DIR_NOT_FOUND: no data dir at ${join(cwd, 'data')}: name the right one with --data DIR or IMGTASK_DATA=DIR; ${hint}\n`,
  );
  assert.deepEqual(await readdir(cwd), []);

  const write = await run('accounts', 'create', 'demo');
  assert.equal(write.code, 0, write.stderr);
  assert.equal(
    write.stderr,
    `imgtask: created a new data dir at ${join(cwd, 'data')}; to work on another, name it with --data DIR or IMGTASK_DATA=DIR; ${hint}\n`,
  );

  // The server's own data dir works through its socket, and is not pointed at as "another".
  const there = await run('--data', served, 'accounts', 'list', '--json');
  assert.equal(there.code, 0, there.stderr);
  assert.equal(there.stderr, '');

  // Stopped: its entry is gone with it.
  serve.child.kill('SIGTERM');
  await exited;
  const after = await run('--data', join(cwd, 'missing'), 'doctor');
  assert.equal(after.code, 2);
  assert.doesNotMatch(after.stderr, /server is running/);
  assert.deepEqual(await readdir(join(env.XDG_RUNTIME_DIR, 'imgtask-servers')), []);
});

test('an entry left by a server that was killed is stale: not named, and removed', async (t) => {
  const { env, run } = await setting(t);
  const served = await tempDir(t);
  const serve = await startServeProcess(['--data', served], env);
  serve.child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => serve.child.once('exit', () => resolve()));
  closeBeforeRemoval(served, async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    await exited;
  });
  const registry = join(env.XDG_RUNTIME_DIR, 'imgtask-servers');
  assert.deepEqual(await readdir(registry), [`${serve.child.pid}.json`]);
  serve.child.kill('SIGKILL');
  await exited;
  assert.deepEqual(await readdir(registry), [`${serve.child.pid}.json`], 'a killed process removes nothing');

  const read = await run('accounts', 'list');
  assert.equal(read.code, 2);
  assert.doesNotMatch(read.stderr, /server is running/);
  assert.deepEqual(await readdir(registry), []);
});
