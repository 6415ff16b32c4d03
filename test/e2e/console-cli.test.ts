import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { followLink } from '../helpers/console.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

test('imgtask console prints a one-time link to the running server (alone on stdout when piped); sessions list and revoke', async (t) => {
  const data = await tempDir(t);
  assert.equal((await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '1'])).code, 0);
  const serve = await startServeProcess(['--data', data]);
  serve.child.removeAllListeners('exit');
  closeBeforeRemoval(data, async () => {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });

  const printed = await runCli(['--data', data, 'console', '--account', 'acme', '--next', '/console/gallery']);
  assert.equal(printed.code, 0, printed.stderr);
  const link = printed.stdout.trim();
  assert.match(link, new RegExp(`^${serve.url}/console/sign-in/csl_[0-9A-Za-z]{43}$`), 'the link alone on stdout');
  assert.match(printed.stderr, /single use, valid until/);

  const first = await followLink(link);
  assert.equal(first.status, 303);
  assert.equal(first.headers.get('location'), '/console/gallery');
  const cookie = /imgtask_console=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')![1];
  assert.equal((await followLink(link)).status, 401, 'single use');

  const listed = await runCli(['--data', data, 'console', 'sessions', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const session = listed.json.find((s: { kind: string }) => s.kind === 'session');
  assert.equal(session.account, 'acme');
  const table = await runCli(['--data', data, 'console', 'sessions', 'list']);
  assert.match(table.stdout, new RegExp(`${session.id}\\s+session\\s+acme\\s+live`));

  const page = () =>
    fetch(`${serve.url}/console`, { redirect: 'manual', headers: { cookie: `imgtask_console=${cookie}` } });
  assert.equal((await page()).status, 200);
  const revoked = await runCli(['--data', data, 'console', 'sessions', 'revoke', session.id]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal((await page()).status, 303, 'a revoked session opens nothing');

  const operator = await runCli(['--data', data, 'console', '--operator', '--json']);
  assert.equal(operator.json.account, null);
  const toOperator = await followLink(operator.json.url);
  assert.equal(toOperator.headers.get('location'), '/console/operator');

  const both = await runCli(['--data', data, 'console']);
  assert.equal(both.code, 2, 'an account or --operator is needed');
  assert.match(both.stderr, /--account NAME, or --operator/);
  serve.child.kill('SIGTERM');
});
