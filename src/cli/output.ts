/**
 * Exit codes scripts rely on: 0 ok, 1 a failure (a request refused, a broken ledger, a fault),
 * 2 bad arguments, 3 a followed task failed, 4 it completed with failed items.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, taskFailed: 3, itemsFailed: 4 } as const;

/** Bad arguments caught before anything is asked of a server or a store. */
export class UsageError extends Error {}

/** Prints a result: one JSON document with --json, else the human text (made only when needed). */
export function print(options: { json: boolean }, value: unknown, human: string | (() => string)): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${typeof human === 'string' ? human : human()}\n`);
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
