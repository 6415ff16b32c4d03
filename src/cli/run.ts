import { resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { ApiError } from '../client/http-client.js';
import { ConfigError, environment } from '../config/environment.js';
import { AppError } from '../domain/errors.js';
import { EXIT, UsageError } from './output.js';

// NO_COLOR: every command module loads this one before Ink (and so chalk), which then sees it.
environment.applyNoColor();

export interface CommandContext {
  /** The data dir (--data, IMGTASK_DATA, ./data). */
  data: string;
  /** The config file (--config, IMGTASK_CONFIG). */
  config?: string;
  /** Print one JSON document instead of text. */
  json: boolean;
  /** The server and credential of client commands (--url, IMGTASK_URL; --key, IMGTASK_API_KEY). */
  url?: string;
  /** Which of the two gave `url`, to name it when it is not a URL. */
  urlFrom?: '--url' | 'IMGTASK_URL';
  key?: string;
}

/**
 * When a command prints JSON: operator commands with --json; client commands also whenever
 * stdout is not a terminal (their output is meant for scripts then).
 */
type JsonPolicy = 'flag' | 'auto';

function contextOf(command: Command, policy: JsonPolicy): CommandContext {
  const all = command.optsWithGlobals() as {
    data?: string;
    config?: string;
    json?: boolean;
    url?: string;
    key?: string;
  };
  return {
    data: all.data ?? environment.dataDir() ?? './data',
    config: all.config ?? environment.configFile(),
    json: Boolean(all.json) || (policy === 'auto' && !process.stdout.isTTY),
    url: all.url ?? environment.serverUrl(),
    urlFrom: all.url !== undefined ? '--url' : environment.serverUrl() !== undefined ? 'IMGTASK_URL' : undefined,
    key: all.key ?? environment.apiKey(),
  };
}

/**
 * The exit code a failure calls for. Bad arguments exit 2: a usage error, an operator action
 * refused for its arguments (a 4xx AppError), a body the API's schema rejected. Anything else
 * exits 1: a request the server refused, a storage refusing a test (502), a fault.
 */
function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof AppError) return err.status >= 400 && err.status < 500 ? EXIT.usage : EXIT.failure;
  if (err instanceof ApiError) return err.code === 'SCHEMA_REJECTED' ? EXIT.usage : EXIT.failure;
  return EXIT.failure;
}

/** An error of the operating system: a file, a directory or a port refused. */
type SystemError = Error & { code: string; syscall?: string; path?: string; address?: string; port?: number };
const isSystemError = (err: unknown): err is SystemError =>
  err instanceof Error && typeof (err as SystemError).code === 'string' && /^E[A-Z]+$/.test((err as SystemError).code);

const codeOf = (err: unknown): string => {
  if (err instanceof AppError || err instanceof ApiError) return err.code;
  if (err instanceof UsageError) return err.code;
  if (err instanceof ConfigError) return 'CONFIG_ERROR';
  if (isSystemError(err)) return err.code;
  return 'ERROR';
};

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it is a file, not a directory',
  ENOTDIR: 'a file is in the way where a directory should be',
};

/**
 * One sentence for an operating-system refusal, saying what to do: a port in use points at
 * --port; the data dir (or a path in it) refused points at --data and at what to fix there.
 */
function explain(err: SystemError, context: Pick<CommandContext, 'data'>): string {
  if (err.code === 'EADDRINUSE') {
    const where = err.port === undefined ? 'the port' : `port ${err.port}${err.address ? ` on ${err.address}` : ''}`;
    return `${where} is already in use: stop what listens there, or pick another port with --port (0 picks a free one)`;
  }
  const reason = REASONS[err.code];
  if (!reason || !err.path) return err.message;
  const path = resolve(err.path);
  const dataDir = resolve(context.data);
  const inDataDir = path === dataDir || path.startsWith(dataDir + sep) || dataDir.startsWith(path + sep);
  if (!inDataDir) return `cannot use ${path}: ${err.code === 'EEXIST' ? 'a file is in the way' : reason} (${err.code})`;
  const fix =
    err.code === 'EEXIST' || err.code === 'ENOTDIR'
      ? 'move the file away, or pick another data dir with --data DIR (or IMGTASK_DATA)'
      : err.code === 'ENOSPC'
        ? 'free some space, or pick another data dir with --data DIR (or IMGTASK_DATA)'
        : 'give this user write access to it, or pick a data dir it can write with --data DIR (or IMGTASK_DATA)';
  return `cannot use the data dir ${dataDir}: ${reason} (${err.code}); ${fix}`;
}

/**
 * One line on stderr (and the error as JSON on stdout with --json); never a stack trace. A
 * config's problems keep a line each: a file with several mistakes reads as a list.
 */
function report(err: unknown, context: Pick<CommandContext, 'json' | 'data'>): void {
  const code = codeOf(err);
  const text = isSystemError(err) ? explain(err, context) : err instanceof Error ? err.message : String(err);
  const message = err instanceof ConfigError ? text : text.split('\n').join(' ');
  if (context.json)
    process.stdout.write(
      `${JSON.stringify({ error: { code, message, status: err instanceof ApiError ? err.status : undefined } })}\n`,
    );
  const named = err instanceof AppError || err instanceof ApiError || err instanceof UsageError;
  process.stderr.write(`imgtask: ${named && message !== code ? `${code}: ` : ''}${message}\n`);
}

/**
 * Wraps a command's action, for operator and client commands alike: resolves the global
 * options, runs the body, and sets the exit code it answers (0 when it answers none), or
 * reports its failure with the exit code of `exitCodeFor`.
 */
export const command =
  <Args extends unknown[]>(
    // biome-ignore lint/suspicious/noConfusingVoidType: a command body answers an exit code, or nothing for 0
    run: (context: CommandContext, ...args: Args) => Promise<number | void>,
    options: { json?: JsonPolicy } = {},
  ) =>
  async (...args: Args): Promise<void> => {
    const context = contextOf(args[args.length - 1] as Command, options.json ?? 'flag');
    try {
      process.exitCode = (await run(context, ...args)) ?? EXIT.ok;
    } catch (err) {
      report(err, context);
      process.exitCode = exitCodeFor(err);
    }
  };
