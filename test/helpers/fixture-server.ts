import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '../fixtures/serve-test-tasks.ts');

/**
 * Starts the test-task server fixture as a child process on a data dir; resolves once it listens.
 * `exited` answers the exit code, or `signal SIGxxx` when a signal ended it; `log()` is its stderr
 * (for the message of a failed assertion).
 */
export function startFixture(
  data: string,
  overrides: object = {},
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | string | null>; log: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, data, JSON.stringify(overrides)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | string | null>((done) =>
      child.on('exit', (code, signal) => done(code ?? (signal ? `signal ${signal}` : null))),
    );
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1], exited, log: () => err.slice(-2000) });
    });
    child.stderr!.on('data', (chunk) => (err += chunk));
    exited.then((code) => reject(new Error(`fixture exited with ${code}`)));
  });
}
