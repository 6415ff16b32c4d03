import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `imgtask` as the tests run it: the current sources through tsx, never the compiled dist/ (which
 * may be older than the sources being tested). The packaging test runs the compiled CLI.
 */
export const BIN = join(import.meta.dirname, 'imgtask-src.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs `imgtask …` as a real child process (in `cwd`, by default the test's) and collects its output. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Starts `imgtask serve` as a child and resolves with its URL once it accepts connections. */
export function startServeProcess(
  args: string[],
  env: Record<string, string> = {},
  serveArgs: string[] = [],
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, 'serve', '--port', '0', ...serveArgs], {
      env: { ...process.env, ...env },
    });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = /http:\/\/[\w.:[\]-]+/.exec(out);
      if (match) resolve({ child, url: match[0], output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}
