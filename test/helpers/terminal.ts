import { spawn, spawnSync } from 'node:child_process';
import { BIN } from './cli.js';

/** `script` (util-linux) gives the CLI a real pseudo-terminal, as a user's shell does. */
export const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `imgtask …` in a 160×40 pseudo-terminal; answers what the terminal received and the exit code. */
export function runInTerminal(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; screen: string }> {
  const running = startInTerminal(args, env);
  return running.exited.then((code) => ({ code, screen: running.screen() }));
}

/**
 * Starts `imgtask …` in a 160×40 pseudo-terminal: what the terminal has received so far, and its exit code once it
 * ends.
 */
export function startInTerminal(
  args: string[],
  env: Record<string, string>,
): { screen(): string; exited: Promise<number | null> } {
  const command = `stty cols 160 rows 40; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  // As on an operator's terminal: no CI markers (Ink then draws only a last frame and chalk no colour), no colour
  // overrides.
  const childEnv: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', ...env };
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION', 'BUILD_NUMBER', 'RUN_ID', 'FORCE_COLOR', 'COLORTERM'])
    delete childEnv[name];
  if (!env.NO_COLOR) delete childEnv.NO_COLOR;
  let screen = '';
  const exited = new Promise<number | null>((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk) => (screen += chunk));
    child.stderr.on('data', (chunk) => (screen += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { screen: () => screen, exited };
}
