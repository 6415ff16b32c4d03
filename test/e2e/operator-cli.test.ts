import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const noStackTrace = (text: string) => assert.doesNotMatch(text, /^\s+at .+:\d+:\d+\)?$/m);

test('operator commands work on a stopped data dir and print one JSON document with --json', async (t) => {
  const data = await tempDir(t);
  const created = await runCli(['--data', data, 'accounts', 'create', 'alice', '--credit', '10', '--json']);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.json.id, /^acc_/);
  assert.equal(created.json.name, 'alice');
  assert.equal(created.json.balance, '10');

  const credited = await runCli(['accounts', 'credit', 'alice', '2.5', '--json'], { IMGTASK_DATA: data });
  assert.equal(credited.json.balance, '12.5');
  assert.equal(credited.json.available, '12.5');

  const key = await runCli([
    '--data',
    data,
    'keys',
    'create',
    '--account',
    created.json.id,
    '--name',
    'ci',
    '--scopes',
    'image:generate,tasks:read',
    '--spending-limit',
    '5',
    '--period',
    'day',
    '--json',
  ]);
  assert.equal(key.code, 0, key.stderr);
  assert.deepEqual(Object.keys(key.json), ['apiKey', 'raw']);
  assert.match(key.json.raw, /^mak_/);
  assert.deepEqual(key.json.apiKey.scopes, ['image:generate', 'tasks:read']);
  assert.equal(key.json.apiKey.spendingLimit, '5');
  assert.equal(key.json.apiKey.spendingLimitPeriod, 'day');

  const listed = await runCli(['--data', data, 'keys', 'list', '--account', 'alice', '--json']);
  assert.deepEqual(
    listed.json.map((k: { id: string }) => k.id),
    [key.json.apiKey.id],
  );
  const shown = await runCli(['--data', data, 'accounts', 'show', 'alice']);
  assert.match(shown.stdout, /balance 12\.5/);
  assert.match(shown.stdout, new RegExp(key.json.apiKey.id));

  const token = await runCli(['--data', data, 'tokens', 'issue', '--account', 'alice', '--ttl', '15m', '--json']);
  assert.deepEqual(Object.keys(token.json), ['accessToken', 'expiresAt']);
  const ttl = Date.parse(token.json.expiresAt) - Date.now();
  assert.ok(ttl > 13 * 60_000 && ttl <= 15 * 60_000, `ttl ${ttl}`);

  const revoked = await runCli(['--data', data, 'keys', 'revoke', key.json.apiKey.id, '--json']);
  assert.equal(revoked.json.revoked, true);
  assert.deepEqual((await runCli(['--data', data, 'keys', 'list', '--account', 'alice', '--json'])).json, []);

  const list = await runCli(['--data', data, 'accounts', 'list', '--json']);
  assert.deepEqual(
    list.json.map((a: { name: string }) => a.name),
    ['alice'],
  );
});

test('bad arguments give one line and exit code 2, never a stack trace', async (t) => {
  const data = await tempDir(t);
  await runCli(['--data', data, 'accounts', 'create', 'taken']);
  const cases: Array<[string, string[]]> = [
    ['an unknown command', ['frobnicate']],
    ['a missing required option', ['keys', 'create']],
    ['an unknown account', ['keys', 'create', '--account', 'nobody']],
    ['a taken account name', ['accounts', 'create', 'taken']],
    ['an amount that is not USD', ['accounts', 'credit', 'taken', 'ten']],
    ['an unknown scope', ['keys', 'create', '--account', 'taken', '--scopes', 'everything']],
    ['a token-only scope on a key', ['keys', 'create', '--account', 'taken', '--scopes', 'manage']],
    ['a bad ttl', ['tokens', 'issue', '--account', 'taken', '--ttl', 'forever']],
    ['a bad port', ['serve', '--port', 'eighty']],
    ['an unknown key id', ['keys', 'revoke', 'key_nope']],
  ];
  for (const [name, args] of cases) {
    await t.test(name, async () => {
      const result = await runCli(['--data', data, ...args]);
      assert.equal(result.code, 2, `${name}: ${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /^imgtask: /);
      noStackTrace(result.stderr);
    });
  }
  const unknownKey = await runCli(['--data', data, 'keys', 'revoke', 'key_nope']);
  assert.equal(
    unknownKey.stderr.trim(),
    'imgtask: API_KEY_NOT_FOUND: no API key key_nope',
    'the code and what was not found',
  );
  const noFlag = await runCli(['--data', data, 'keys', 'create', '--account', 'taken', '--period', 'day']);
  assert.equal(noFlag.stderr.trim(), 'imgtask: VALIDATION_ERROR: --period goes with --spending-limit');
  const json = await runCli(['--data', data, 'keys', 'create', '--account', 'nobody', '--json']);
  assert.equal(json.code, 2);
  assert.equal(json.json.error.code, 'VALIDATION_ERROR');
});

test('with a server running, commands go through its admin socket and the server sees the change at once', async (t) => {
  const data = await tempDir(t);
  const first = await runCli(['--data', data, 'accounts', 'create', 'early', '--json']);
  assert.equal(first.code, 0);

  const serve = await startServeProcess(['--data', data]);
  serve.child.removeAllListeners('exit');
  // A stop ended by a signal says which, with what the server printed.
  const exited = new Promise<number | string>((resolve) =>
    serve.child.on('exit', (code, signal) => resolve(code ?? `${signal}: ${serve.output().slice(-2000)}`)),
  );
  closeBeforeRemoval(data, async () => {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });
  assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const socket = await stat(join(data, 'admin.sock'));
  assert.ok(socket.isSocket());
  assert.equal(socket.mode & 0o777, 0o600);
  assert.equal((await stat(join(data, 'keys', 'token-signing.key'))).mode & 0o777, 0o600);

  const account = await runCli(['--data', data, 'accounts', 'create', 'live', '--credit', '1', '--json']);
  assert.equal(account.code, 0, account.stderr);
  const token = await runCli(['--data', data, 'tokens', 'issue', '--account', 'live', '--json']);
  const res = await send(serve.url, 'POST', '/api-key', {
    auth: token.json.accessToken,
    body: { name: 'from-cli-token' },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.data.apiKey.userId, account.json.id);

  const keys = await runCli(['--data', data, 'keys', 'list', '--account', 'live', '--json']);
  assert.deepEqual(
    keys.json.map((k: { name: string }) => k.name),
    ['from-cli-token'],
  );
  const refused = await runCli(['--data', data, 'accounts', 'create', 'live']);
  assert.equal(refused.code, 2, 'errors come back through the socket with their codes');

  serve.child.kill('SIGTERM');
  assert.equal(await exited, 0);
  await assert.rejects(stat(join(data, 'admin.sock')), 'the socket is removed on a clean stop');

  // Everything acknowledged while it ran is there after it stopped.
  const after = await runCli(['--data', data, 'accounts', 'list', '--json']);
  assert.deepEqual(after.json.map((a: { name: string }) => a.name).sort(), ['early', 'live']);
});

test('a first start creates the data dir and says how to get an account, a key and a token', async (t) => {
  const parent = await tempDir(t);
  const data = join(parent, 'fresh');
  const serve = await startServeProcess(['--data', data]);
  closeBeforeRemoval(parent, async () => {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });
  await eventually(() => /tokens issue/.test(serve.output()));
  const out = serve.output();
  assert.match(out, /First start/);
  assert.match(out, /accounts create/);
  assert.match(out, /keys create/);
  assert.match(out, /tokens issue/);
  assert.equal((await stat(data)).mode & 0o777, 0o700);
  const second = await runCli(['--data', data, 'serve', '--port', '0']);
  assert.equal(second.code, 1, 'a second server on the same data dir is refused');
  assert.match(second.stderr, /in use by process \d+/);
});
