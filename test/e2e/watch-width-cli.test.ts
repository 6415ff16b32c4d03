// `--watch` / `tasks watch` on a terminal that reports 0 columns (a serial console, some CI and
// container pseudo-terminals): the report is laid out 80 columns wide, not one character per line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { hasScript } from '../helpers/terminal.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences, taken out to read the text
const plain = (screen: string) => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/**
 * Runs `imgtask …` in a pseudo-terminal of `cols` × `rows` (`stty`); answers what the terminal received (`raw`, and as
 * text) and the exit code.
 */
async function inTerminalOf(
  cols: number,
  rows: number,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; raw: string; screen: string }> {
  const command = `stty cols ${cols} rows ${rows}; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    ...env,
  };
  for (const name of [
    'CI',
    'CONTINUOUS_INTEGRATION',
    'BUILD_NUMBER',
    'RUN_ID',
    'FORCE_COLOR',
    'COLORTERM',
    'COLUMNS',
    'LINES',
  ])
    delete childEnv[name];
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: childEnv as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (chunk) => (screen += chunk));
  child.stderr.on('data', (chunk) => (screen += chunk));
  const [code] = await once(child, 'close');
  return { code, raw: screen, screen: plain(screen) };
}

test('tasks watch in a terminal of 0 columns: whole lines, as 80 columns wide', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const h = await startService(t);
  // Pending when the watch starts: it follows the task in its live (Ink) view, whose last frame is the report.
  const create = async (): Promise<string> => {
    const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 2, delayMs: 3_000 } });
    assert.equal(res.status, 201, res.text);
    return res.json.data.taskId;
  };
  let taskId = await create();

  const narrow = await inTerminalOf(0, 0, ['tasks', 'watch', taskId], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(narrow.code, 0, narrow.screen);
  assert.match(
    narrow.screen,
    new RegExp(`${taskId} test\\.echo completed`),
    `the task's line whole:\n${narrow.screen}`,
  );
  // A view "taller than the terminal" (0 rows) would be drawn by clearing the screen and the scrollback, every frame.
  assert.ok(!narrow.raw.includes('\x1b[3J'), 'the scrollback is left alone');
  const lines = narrow.screen.split('\n').filter((line) => line.trim());
  assert.ok(
    lines.filter((line) => line.trim().length === 1).length < 3,
    `not one character per line:\n${narrow.screen}`,
  );

  // A terminal that reports its width is drawn at that width, as before.
  taskId = await create();
  const wide = await inTerminalOf(120, 30, ['tasks', 'watch', taskId], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(wide.code, 0, wide.screen);
  assert.match(wide.screen, new RegExp(`${taskId} test\\.echo completed`));
});
