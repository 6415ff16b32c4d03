import type { Command } from 'commander';
import { ApiError } from '../client/http-client.js';
import { ConfigError, environment } from '../config/load.js';
import { AppError } from '../domain/errors.js';
import { EXIT, UsageError } from './output.js';

export interface CommandContext {
  /** The data dir (--data, IMGTASK_DATA, ./data). */
  data: string;
  /** The config file (--config, IMGTASK_CONFIG). */
  config?: string;
  /** Print one JSON document instead of text. */
  json: boolean;
  /** The server and credential of client commands (--url, IMGTASK_URL; --key, IMGTASK_API_KEY). */
  url?: string;
  key?: string;
}

/**
 * When a command prints JSON: operator commands with --json; client commands also whenever
 * stdout is not a terminal (their output is meant for scripts then).
 */
type JsonPolicy = 'flag' | 'auto';

function contextOf(command: Command, policy: JsonPolicy): CommandContext {
  const all = command.optsWithGlobals() as { data?: string; config?: string; json?: boolean; url?: string; key?: string };
  return {
    data: all.data ?? environment.dataDir() ?? './data',
    config: all.config ?? environment.configFile(),
    json: Boolean(all.json) || (policy === 'auto' && !process.stdout.isTTY),
    url: all.url ?? environment.serverUrl(),
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

const codeOf = (err: unknown): string => {
  if (err instanceof AppError || err instanceof ApiError) return err.code;
  if (err instanceof UsageError) return 'VALIDATION_ERROR';
  if (err instanceof ConfigError) return 'CONFIG_ERROR';
  return 'ERROR';
};

/** One line on stderr (and the error as JSON on stdout with --json); never a stack trace. */
function report(err: unknown, context: Pick<CommandContext, 'json'>): void {
  const code = codeOf(err);
  const message = (err instanceof Error ? err.message : String(err)).split('\n').join(' ');
  if (context.json) process.stdout.write(`${JSON.stringify({ error: { code, message, status: err instanceof ApiError ? err.status : undefined } })}\n`);
  const named = err instanceof AppError || err instanceof ApiError || err instanceof UsageError;
  process.stderr.write(`imgtask: ${named && message !== code ? `${code}: ` : ''}${message}\n`);
}

/**
 * Wraps a command's action, for operator and client commands alike: resolves the global
 * options, runs the body, and sets the exit code it answers (0 when it answers none), or
 * reports its failure with the exit code of `exitCodeFor`.
 */
export const command =
  // biome-ignore lint/suspicious/noConfusingVoidType: a command body answers an exit code, or nothing for 0
    <Args extends unknown[]>(run: (context: CommandContext, ...args: Args) => Promise<number | void>, options: { json?: JsonPolicy } = {}) =>
    async (...args: Args): Promise<void> => {
      const context = contextOf(args[args.length - 1] as Command, options.json ?? 'flag');
      try {
        process.exitCode = (await run(context, ...args)) ?? EXIT.ok;
      } catch (err) {
        report(err, context);
        process.exitCode = exitCodeFor(err);
      }
    };
