export type Period = 'day' | 'week' | 'month';
export const PERIODS: readonly Period[] = ['day', 'week', 'month'];

/**
 * The start of the UTC calendar period holding `millis`, as a short key: a day
 * ("d:2026-11-22"), an ISO week starting Monday ("w:2026-11-16"), or a month ("m:2026-11").
 */
export function periodKey(period: Period, millis: number): string {
  const date = new Date(millis);
  const day = date.toISOString().slice(0, 10);
  if (period === 'day') return `d:${day}`;
  if (period === 'month') return `m:${day.slice(0, 7)}`;
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  const monday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - sinceMonday));
  return `w:${monday.toISOString().slice(0, 10)}`;
}
