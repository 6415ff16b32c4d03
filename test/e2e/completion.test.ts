import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};

const hasShell = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** How each shell checks a script's syntax without running it. */
const SYNTAX_CHECK: Record<string, (file: string) => string[]> = {
  bash: (file) => ['bash', '-n', file],
  zsh: (file) => ['zsh', '-n', file],
  fish: (file) => ['fish', '--no-execute', file],
};

test('imgtask --version and -V print the package version', async () => {
  for (const flag of ['--version', '-V']) {
    const result = await runCli([flag]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`);
  }
});

for (const shell of ['bash', 'zsh', 'fish']) {
  test(`imgtask completion ${shell}: a script the shell parses, naming the commands, subcommands and options`, async (t) => {
    const result = await runCli(['completion', shell]);
    assert.equal(result.code, 0, result.stderr);
    for (const word of [
      'serve',
      'accounts',
      'keys',
      'tokens',
      'webhooks',
      'destinations',
      'generate',
      'rate',
      'tasks',
      'dashboard',
      'queues',
      'completion',
      'rotate-secret',
      'watch',
      '--data',
      '--spending-limit',
    ]) {
      assert.ok(result.stdout.includes(word), `${shell} script names ${word}`);
    }
    if (!hasShell(shell)) {
      t.skip(`${shell} is not installed here: its syntax check is skipped`);
      return;
    }
    const dir = await tempDir(t);
    const file = join(dir, `imgtask.${shell}`);
    writeFileSync(file, result.stdout);
    const [command, ...args] = SYNTAX_CHECK[shell](file);
    const check = spawnSync(command, args, { encoding: 'utf8' });
    assert.equal(check.status, 0, `${shell} rejects the script: ${check.stderr}`);
  });
}

test('the bash completion completes commands, subcommands by position, options and skips option values', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'imgtask.bash');
  writeFileSync(file, (await runCli(['completion', 'bash'])).stdout);
  const complete = (...words: string[]) => {
    const script = `source ${JSON.stringify(file)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_imgtask; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.split('\n').filter(Boolean);
  };
  assert.deepEqual(complete('imgtask', 'acc'), ['accounts']);
  assert.deepEqual(complete('imgtask', 'accounts', ''), ['create', 'credit', 'set', 'erase', 'list', 'show']);
  // `tasks` after --data is the value of --data, not a command.
  assert.ok(complete('imgtask', '--data', 'tasks', '').includes('serve'));
  assert.deepEqual(complete('imgtask', '--data', '/srv/imgtask', 'tasks', ''), [
    'list',
    'show',
    'watch',
    'cancel',
    'delete',
  ]);
  assert.deepEqual(complete('imgtask', 'keys', 'create', '--sp'), ['--spending-limit']);
  assert.ok(complete('imgtask', 'keys', 'create', '--').includes('--data'), 'global options complete after a command');
  assert.deepEqual(complete('imgtask', 'completion', ''), ['bash', 'zsh', 'fish']);
});

test('imgtask completion with an unknown shell is a usage error that lists the shells', async () => {
  const result = await runCli(['completion', 'powershell']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /bash, zsh, fish/);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
});
