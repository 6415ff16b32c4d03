export type Period = 'day' | 'week' | 'month';
export const PERIODS: readonly Period[] = ['day', 'week', 'month'];

/**
 * The start of the UTC calendar period holding `millis`, as a short key: a day
 * ("d:2026-11-22"), an ISO week starting Monday ("w:2026-11-16"), or a month ("m:2026-11").
 */
export function periodKey(period: Period, millis: number): string {
  const dayNumber = Math.floor(millis / DAY_MS);
  if (period === 'day') return `d:${dayString(dayNumber)}`;
  if (period === 'month') return `m:${dayString(dayNumber).slice(0, 7)}`;
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  return `w:${dayString(dayNumber - ((dayNumber + 3) % 7))}`;
}

const DAY_MS = 86_400_000;
const dayStrings = new Map<number, string>();

/** "YYYY-MM-DD" of a day number, cached: spend indexes ask for the same few days all the time. */
function dayString(dayNumber: number): string {
  let text = dayStrings.get(dayNumber);
  if (text === undefined) {
    text = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    if (dayStrings.size > 10_000) dayStrings.clear();
    dayStrings.set(dayNumber, text);
  }
  return text;
}
