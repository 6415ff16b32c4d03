import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '../fixtures/serve-test-tasks.ts');

/** Starts the test-task server fixture as a child process on a data dir; resolves once it listens. */
export function startFixture(data: string, overrides: object = {}): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, data, JSON.stringify(overrides)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1], exited });
    });
    child.stderr!.on('data', () => undefined);
    exited.then((code) => reject(new Error(`fixture exited with ${code}`)));
  });
}
