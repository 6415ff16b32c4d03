import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { BIN, runCli, startServeProcess } from '../helpers/cli.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

test('imgtask dashboard in a real 80×24 terminal: it shows the server, moves with j/k, opens details, quits with q', {
  skip: hasTmux ? false : 'tmux is not installed (.ci/run installs it)',
}, async (t) => {
  const data = await tempDir(t);
  const serve = await startServeProcess(['--data', data]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  for (const prompt of ['one', 'two'])
    await send(serve.url, 'POST', '/image/generate', { auth: key, body: { prompt } });

  const session = `imgtask-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  // CI runs with CI=true, and Ink then renders only a final frame; an operator's terminal has no CI.
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '80',
    '-y',
    '24',
    `env CI=false ${process.execPath} ${BIN} --data ${data} dashboard --interval 300`,
  );
  t.after(() => spawnSync('tmux', ['kill-session', '-t', session]));
  const screen = () => tmux('capture-pane', '-p', '-t', session);
  // On failure, show what the terminal showed.
  const until = (check: (text: string) => boolean, ms: number) =>
    eventually(() => check(screen()), ms).catch((err: Error) => {
      throw new Error(
        `${err.message}; the screen was:\n${spawnSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' }).stdout}`,
      );
    });

  await until((text) => /completed 2/.test(text), 40_000);
  const first = screen();
  assert.match(first, /imgtask http:\/\/127\.0\.0\.1:\d+/);
  assert.match(first, /acme 4\.998\/4\.998/);
  assert.match(first, /> tsk_/);
  for (const line of first.split('\n')) assert.ok([...line.trimEnd()].length <= 80);

  tmux('send-keys', '-t', session, 'j');
  await until((text) => /^\s+tsk_.*\n> tsk_/m.test(text), 10_000);
  tmux('send-keys', '-t', session, 'Enter');
  await until((text) => /created \d{4}-/.test(text), 10_000);
  tmux('send-keys', '-t', session, 'q');
  await eventually(() => spawnSync('tmux', ['has-session', '-t', session]).status !== 0, 10_000);
});
