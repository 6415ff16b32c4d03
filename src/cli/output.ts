import { parseUsd } from '../domain/money.js';
import { parseDuration } from '../domain/time.js';

/**
 * Exit codes scripts rely on: 0 ok, 1 a failure (a request refused, a broken ledger, a fault),
 * 2 bad arguments, 3 a followed task failed, 4 it completed with failed items.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, taskFailed: 3, itemsFailed: 4 } as const;

/**
 * Bad arguments caught before anything is asked of a server or a store; `code` names the kind (VALIDATION_ERROR unless
 * told).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly code = 'VALIDATION_ERROR',
  ) {
    super(message);
  }
}

/** Prints a result: one JSON document with --json, else the human text (made only when needed). */
export function print(options: { json: boolean }, value: unknown, human: string | (() => string)): void {
  process.stdout.write(
    options.json ? `${JSON.stringify(value, null, 2)}\n` : `${typeof human === 'string' ? human : human()}\n`,
  );
}

/**
 * Prints a result that hands over a secret made for the caller (a raw API key, an access token, a
 * signing secret): one JSON document with --json; on a terminal the human text, the secret (after
 * its `label`) between the `before` and `after` lines; otherwise (a pipe, a file, `$(…)`) the
 * secret alone on stdout and the other lines on stderr, so `TOKEN=$(imgtask tokens issue …)` holds
 * just the token.
 */
export function printSecret(
  options: { json: boolean },
  value: unknown,
  text: { before?: string[]; label?: string; secret: string; after?: string[] },
): void {
  const { before = [], after = [], label, secret } = text;
  if (options.json || process.stdout.isTTY) {
    print(options, value, () => [...before, label ? `${label} ${secret}` : secret, ...after].join('\n'));
    return;
  }
  if (before.length + after.length > 0) process.stderr.write(`${[...before, ...after].join('\n')}\n`);
  process.stdout.write(`${secret}\n`);
}

/** Fixed-width columns for human listings. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A listing's human text: `rows` as a table under `header`, or `empty` when there are none. */
export const tableOr = (empty: string, header: string[], rows: string[][]): string =>
  rows.length ? table([header, ...rows]) : empty;

/** A comma-separated list; empty items dropped. */
export const listOption = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** A JSON value given on the command line; UsageError naming the option when it does not parse. */
export function jsonOption(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${label} is not valid JSON`);
  }
}

/**
 * A whole number given for `option`, checked against its range before anything is sent;
 * undefined when the option was not given. UsageError naming the option and the range.
 */
export function intOption(text: string | undefined, option: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  return value;
}

/** One of `allowed` given for `option`; undefined when not given. UsageError listing the valid values. */
export function enumOption<const T extends string>(
  text: string | undefined,
  option: string,
  allowed: readonly T[],
): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`${option} must be one of: ${allowed.join(', ')} (not "${text}")`);
  return text as T;
}

/**
 * A comma-separated list whose items are each one of `allowed`. UsageError naming the first unknown item and the valid
 * values.
 */
export function enumListOption<const T extends string>(text: string, option: string, allowed: readonly T[]): T[] {
  return listOption(text).map((item) => enumOption(item, option, allowed) as T);
}

/** A USD amount given for `option` ("10", "0.5"), checked here; passed on as the text given. */
export function usdOption(text: string | undefined, option: string): string | undefined {
  if (text === undefined) return undefined;
  if (parseUsd(text) === null)
    throw new UsageError(
      `${option} must be a USD amount from 0 to 1000000000 with at most 6 decimals, such as 10 or 0.5 (not "${text}")`,
    );
  return text;
}

/** A duration given for `option` ("90s", "15m", "1h", "30d"), checked here; passed on as the text given. */
export function durationOption(text: string | undefined, option: string): string | undefined {
  if (text === undefined) return undefined;
  if (parseDuration(text) === null)
    throw new UsageError(
      `${option} must be a duration: a whole number with ms, s, m, h or d, such as 90s, 15m, 1h or 30d (not "${text}")`,
    );
  return text;
}
