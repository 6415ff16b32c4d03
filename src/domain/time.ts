let lastMillis = Number.NaN;
let lastText = '';

/**
 * Timestamps are ISO 8601 with milliseconds in UTC ("2026-11-22T08:00:00.000Z"). Under load
 * many records share a millisecond, so the last one formatted is kept.
 */
export function isoTime(millis: number): string {
  if (millis !== lastMillis) {
    lastText = new Date(millis).toISOString();
    lastMillis = millis;
  }
  return lastText;
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses "90s", "15m", "1h", "30d" into milliseconds, or null. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return value > 0 && Number.isSafeInteger(value) ? value : null;
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;

/**
 * Parses a duration of one or more parts, largest or smallest first ("500ms", "15s", "5m",
 * "1h30m", "1.5s": the spelling of Replicate's Cancel-After and Go's durations), into whole
 * milliseconds; null when it is anything else.
 */
export function parseCompoundDuration(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  DURATION_PART.lastIndex = 0;
  let total = 0;
  while (DURATION_PART.lastIndex < trimmed.length) {
    const match = DURATION_PART.exec(trimmed);
    if (!match) return null;
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  const ms = Math.round(total);
  return Number.isSafeInteger(ms) ? ms : null;
}
