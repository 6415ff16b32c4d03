import { AppError } from '../domain/errors.js';
import { ConfigError } from '../config/load.js';

/** Exit codes scripts rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export class UsageError extends Error {}

export interface OutputOptions {
  json?: boolean;
}

/** Prints a result: one JSON document with --json, else the human text. */
export function print(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Bad arguments exit 2 with one line; other failures exit 1. Never a stack trace. */
export function fail(err: unknown, options: OutputOptions): never {
  // Bad arguments (any 4xx-class AppError) exit 2; a storage refusing a test (502) or a fault exits 1.
  const usage = err instanceof UsageError || (err instanceof AppError && err.status >= 400 && err.status < 500);
  const code = err instanceof AppError ? err.code : usage ? 'VALIDATION_ERROR' : err instanceof ConfigError ? 'CONFIG_ERROR' : 'ERROR';
  const message = (err instanceof Error ? err.message : String(err)).split('\n').join(' ');
  if (options.json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.stderr.write(`imgtask: ${message}\n`);
  process.exit(usage ? EXIT.usage : EXIT.failure);
}

/** Fixed-width columns for human listings. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}
