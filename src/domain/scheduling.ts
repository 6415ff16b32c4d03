import { parseCompoundDuration } from './time.js';

/**
 * The bounds of the settings that decide who runs next (docs/api/keys-and-scopes.md#scheduling-limits):
 * one place, so the API's schemas, the operator's actions and the CLI's checks agree.
 */

/** A task's priority, and so the highest one a key may allow (its maxPriority); unset: the default. */
export const PRIORITY = { min: -10, max: 10, default: 0 } as const;

/** An account's share of a lane against other accounts with queued work; unset: the default. */
export const ACCOUNT_WEIGHT = { min: 1, max: 100, default: 1 } as const;

/** The largest maxConcurrent a key may hold: a bound no fleet reaches, so that a typo is refused. */
export const MAX_CONCURRENT_BOUND = 1_000_000;

/**
 * The shortest and longest deadline a create may ask for with Cancel-After (docs/api/tasks.md#deadlines-cancel-after).
 */
export const CANCEL_AFTER_MS = { min: 1000, max: 24 * 3_600_000 } as const;

/**
 * A Cancel-After value as milliseconds, or why it is refused: a duration of one or more parts
 * (`500ms`, `15s`, `5m`, `1h30m`: Replicate's spelling) from 1 s to 24 h. One check for the API,
 * the CLI and the console, so they refuse the same values with the same words.
 */
export function parseCancelAfter(text: string): { ms: number } | { problem: string } {
  const ms = parseCompoundDuration(text);
  const shown = text.trim().slice(0, 64);
  if (ms === null) return { problem: `"${shown}" is not a duration such as 30s, 5m or 1h30m` };
  if (ms < CANCEL_AFTER_MS.min || ms > CANCEL_AFTER_MS.max)
    return { problem: `${shown} is out of range: from 1s to 24h` };
  return { ms };
}
