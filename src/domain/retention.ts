import { parseDuration } from './time.js';

/** What retention removes as it ages (docs/data-lifecycle.md#retention). */
export const RETENTION_KINDS = ['outputs', 'uploads', 'tasks', 'deliveries', 'consoleSessions'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** The kinds an account may set for itself (imgtask accounts set --retain-*). */
export const ACCOUNT_RETENTION_KINDS = ['outputs', 'uploads', 'tasks'] as const;
export type AccountRetentionKind = (typeof ACCOUNT_RETENTION_KINDS)[number];

/** A retention setting: a duration (`30d`, `12h`, `90m`) or `off` (kept forever). */
export type RetentionSetting = string;

export const RETENTION_OFF = 'off';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The shortest retention of each kind. Task records are kept at least 31 days, so the current
 * month's spend and usage (counted from settled tasks) stay whole; anything else at least an
 * hour, so a client that just made or sent something can still read it.
 */
export const RETENTION_FLOOR_MS: Readonly<Record<RetentionKind, number>> = {
  outputs: HOUR_MS,
  uploads: HOUR_MS,
  tasks: 31 * DAY_MS,
  deliveries: HOUR_MS,
  consoleSessions: HOUR_MS,
};

/**
 * What each kind keeps by default: everything, except delivery logs (30 days) and expired console sessions (7 days).
 */
export const RETENTION_DEFAULTS: Readonly<Record<RetentionKind, RetentionSetting>> = {
  outputs: RETENTION_OFF,
  uploads: RETENTION_OFF,
  tasks: RETENTION_OFF,
  deliveries: '30d',
  consoleSessions: '7d',
};

/** Milliseconds a setting keeps things, or null for `off` (or a text that is neither). */
export const retentionMs = (setting: RetentionSetting): number | null =>
  setting === RETENTION_OFF ? null : parseDuration(setting);

/**
 * Why a setting is refused for `kind` (not a duration nor `off`, or below the kind's floor), or null when it is fine.
 */
export function retentionProblem(kind: RetentionKind, setting: string): string | null {
  if (setting === RETENTION_OFF) return null;
  const ms = parseDuration(setting);
  if (ms === null) return `a duration such as 30d, 12h or 90m, or "off" (kept forever), not "${setting}"`;
  const floor = RETENTION_FLOOR_MS[kind];
  if (ms < floor)
    return `at least ${floorText(floor)}${kind === 'tasks' ? " (so the current month's spend and usage stay whole)" : ''}, not ${setting}`;
  return null;
}

const floorText = (ms: number): string => (ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : `${ms / HOUR_MS}h`);

/** An account's retention of each kind it may set: its own where it set one, else the config's. */
export function effectiveRetention(
  overrides: Partial<Record<AccountRetentionKind, RetentionSetting>> | undefined,
  config: Readonly<Record<AccountRetentionKind, RetentionSetting>>,
): Record<AccountRetentionKind, RetentionSetting> {
  return {
    outputs: overrides?.outputs ?? config.outputs,
    uploads: overrides?.uploads ?? config.uploads,
    tasks: overrides?.tasks ?? config.tasks,
  };
}
