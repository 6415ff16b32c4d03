import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

/**
 * Commands that make a secret, with stdout not a terminal (`X=$(imgtask …)`, a pipe): the secret
 * alone on stdout, one line, and the rest on stderr; on a terminal, the text as a person reads it.
 */

const oneLineOf = (stdout: string, pattern: RegExp): string => {
  assert.match(stdout, /^[^\n]+\n$/, `exactly one line on stdout: ${JSON.stringify(stdout)}`);
  const value = stdout.trim();
  assert.match(value, pattern);
  return value;
};

test('piped, tokens issue, keys create and rotate, webhooks create and rotate-secret print the secret alone; it works against the server', async (t) => {
  const data = await tempDir(t);
  const serve = await startServeProcess(['--data', data]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  const cli = (...args: string[]) => runCli(['--data', data, ...args]);
  assert.equal((await cli('accounts', 'create', 'demo', '--credit', '10')).code, 0);

  // TOK=$(imgtask tokens issue --account demo); curl -H "Authorization: Bearer $TOK" …/api-key
  const issued = await cli('tokens', 'issue', '--account', 'demo');
  assert.equal(issued.code, 0, issued.stderr);
  const token = oneLineOf(issued.stdout, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.match(issued.stderr, /^expires \d{4}-\d\d-\d\dT\S+Z\n$/);
  const keys = await send(serve.url, 'GET', '/api-key', { auth: token });
  assert.equal(keys.status, 200, keys.text);

  const created = await cli('keys', 'create', '--account', 'demo', '--scopes', 'tasks:read');
  assert.equal(created.code, 0, created.stderr);
  const raw = oneLineOf(created.stdout, /^mak_\w+$/);
  assert.match(created.stderr, /^created key_\w+ \(tasks:read\)\nThis is the only time the key is shown\.\n$/);
  const tasks = await send(serve.url, 'GET', '/tasks', { auth: raw });
  assert.equal(tasks.status, 200, tasks.text);

  const keyId = /created (key_\w+)/.exec(created.stderr)![1];
  const rotated = await cli('keys', 'rotate', keyId, '--grace', '0');
  assert.equal(rotated.code, 0, rotated.stderr);
  const fresh = oneLineOf(rotated.stdout, /^mak_\w+$/);
  assert.match(
    rotated.stderr,
    new RegExp(`^created key_\\w+; ${keyId} is revoked\\nThis is the only time the key is shown\\.\\n$`),
  );
  assert.equal((await send(serve.url, 'GET', '/tasks', { auth: fresh })).status, 200);
  assert.equal((await send(serve.url, 'GET', '/tasks', { auth: raw })).status, 401);

  const hook = await cli('webhooks', 'create', '--account', 'demo', '--endpoint', 'https://example.com/hooks');
  assert.equal(hook.code, 0, hook.stderr);
  const secret = oneLineOf(hook.stdout, /^whsec_\S+$/);
  const hookId = /^(wh_\w+) {2}enabled +https:\/\/example\.com\/hooks {2}events: all\n$/.exec(hook.stderr)?.[1];
  assert.ok(hookId, hook.stderr);
  const again = await cli('webhooks', 'rotate-secret', hookId);
  assert.equal(again.code, 0, again.stderr);
  assert.notEqual(oneLineOf(again.stdout, /^whsec_\S+$/), secret);
  assert.match(again.stderr, new RegExp(`^${hookId} `));

  // --json is as before: one document on stdout.
  const json = await cli('tokens', 'issue', '--account', 'demo', '--json');
  assert.deepEqual(Object.keys(json.json), ['accessToken', 'expiresAt']);
  assert.equal(json.stderr, '');
});

test('on a terminal, keys create and tokens issue print as before: what was made, the secret, the notice', {
  skip: !hasScript && 'needs script (util-linux) for a pseudo-terminal',
}, async (t) => {
  const data = await tempDir(t);
  assert.equal((await runCli(['--data', data, 'accounts', 'create', 'demo'])).code, 0);
  const key = await runInTerminal(
    ['--data', data, 'keys', 'create', '--account', 'demo', '--scopes', 'tasks:read'],
    {},
  );
  assert.equal(key.code, 0, key.screen);
  assert.match(key.screen, /created key_\w+ \(tasks:read\)\r?\nmak_\w+\r?\nThis is the only time the key is shown\./);
  const token = await runInTerminal(['--data', data, 'tokens', 'issue', '--account', 'demo'], {});
  assert.equal(token.code, 0, token.screen);
  assert.match(token.screen, /eyJ[\w-]+\.[\w-]+\.[\w-]+\r?\nexpires \S+Z/);
});
