import { UsageQuery } from '../../api/routes/usage/get.js';
import { AppError } from '../../domain/errors.js';
import type { UsageGroupBy } from '../../services/usage.js';

const DAY_MS = 86_400_000;
/** The default range: the last 30 UTC days, today included. */
const DEFAULT_DAYS = 30;

/**
 * A usage range as the page's form and the CSV link carry it: `from` included, `to` excluded, as GET /usage reads them.
 */
export interface UsageRange {
  from: string;
  to: string;
  groupBy: UsageGroupBy;
}

const day = (millis: number): string => new Date(millis).toISOString().slice(0, 10);

/** The default range's dates: from 29 days ago to tomorrow (excluded), so today counts. */
export function defaultRange(now: number): { from: string; to: string } {
  const tomorrow = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  return { from: day(tomorrow - DEFAULT_DAYS * DAY_MS), to: day(tomorrow) };
}

/**
 * The range a page or CSV request asks for, read with GET /usage's own query schema: a field left
 * empty takes the default. The dates themselves are checked by the usage service (VALIDATION_ERROR).
 */
export function rangeOf(query: Record<string, string>, now: number): UsageRange {
  const defaults = defaultRange(now);
  const given = {
    from: query.from?.trim() || defaults.from,
    to: query.to?.trim() || defaults.to,
    groupBy: query.groupBy || undefined,
  };
  const parsed = UsageQuery.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('VALIDATION_ERROR', `${issue.path.join('.') || 'query'}: ${issue.message}`);
  }
  return { from: given.from, to: given.to, groupBy: parsed.data.groupBy ?? 'day' };
}

/** The UTC days of a report's range (at most 367), for a chart with every day, quiet ones too. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(to);
  for (let t = Math.floor(Date.parse(from) / DAY_MS) * DAY_MS; t < end; t += DAY_MS) days.push(day(t));
  return days;
}
