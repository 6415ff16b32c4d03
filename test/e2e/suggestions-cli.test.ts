// Typos get a suggestion: a config key ("did you mean `webhooks`?", one line per problem) and a
// flag, whether the command requires it or not.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

test('a config with mistakes: one line per problem, each naming its key, unknown keys with the known one they are likely a typo of', async (t) => {
  const dir = await tempDir(t);
  const config = join(dir, 'imgtask.json');
  await writeFile(config, JSON.stringify({ webhoks: { maxAttempts: 3 }, server: { port: 'eighty', hots: '0.0.0.0' } }));
  const result = await runCli(['--data', join(dir, 'data'), '--config', config, 'serve']);
  assert.notEqual(result.code, 0);
  assert.deepEqual(result.stderr.trimEnd().split('\n'), [
    'imgtask: config: invalid settings (3 problems):',
    '  server.port: Invalid input: expected number, received string',
    '  server.hots: unknown key; did you mean `host`?',
    '  webhoks: unknown key; did you mean `webhooks`?',
  ]);
  assert.equal(result.stdout, '');
});

test('a mistyped flag is named with its suggestion, a required one as an optional one, never only "required option missing"', async (t) => {
  const data = await tempDir(t);
  assert.equal((await runCli(['--data', data, 'accounts', 'create', 'demo'])).code, 0);
  const cases: Array<[string, string[], string]> = [
    ['a required flag', ['keys', 'create', '--acount', 'demo'], '--account'],
    [
      'an optional flag beside the required one',
      ['keys', 'create', '--account', 'demo', '--spending-limt', '3'],
      '--spending-limit',
    ],
    ['a required flag of another command', ['tokens', 'issue', '--accont', 'demo'], '--account'],
  ];
  for (const [name, args, meant] of cases) {
    await t.test(name, async () => {
      const result = await runCli(['--data', data, ...args]);
      assert.equal(result.code, 2, result.stderr);
      const typo = args.find((arg) => arg.startsWith('--') && arg !== '--account')!;
      assert.equal(result.stderr, `imgtask: unknown option '${typo}'\n(Did you mean ${meant}?)\n`);
    });
  }
  // With nothing mistyped, the missing required flag is still what is said.
  const missing = await runCli(['--data', data, 'keys', 'create']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^imgtask: required option '--account <account>' not specified\n$/);
});
