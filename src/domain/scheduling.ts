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
