import { type Period, periodKey } from '../../domain/periods.js';
import { isoTime } from '../../domain/time.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { UsageReport } from '../../services/usage.js';
import type { ConsoleDeps } from '../deps.js';

/** The first day (UTC) of the spending-limit period holding `now`, as a usage report's `from`. */
export function periodStart(period: Period, now: number): string {
  const day = periodKey(period, now).slice(2);
  return period === 'month' ? `${day}-01` : day;
}

/**
 * What each key has been charged in its limit's current period (UTC day, ISO week or month), from
 * the usage report: one report per period the keys use. Reserved amounts of running tasks are
 * not charges yet and are not counted.
 */
export async function periodSpend(deps: ConsoleDeps, accountId: string, keys: readonly ApiKeyView[]): Promise<Map<string, string>> {
  const now = deps.clock.now();
  // A settled charge is never in the future: a `to` just past now covers the whole period so far,
  // even at the very start of one (when `from` would equal now).
  const to = isoTime(now + 1000);
  const spend = new Map<string, string>();
  for (const period of new Set(keys.map((key) => key.spendingLimitPeriod))) {
    const report = await deps.usage.report(accountId, { groupBy: 'key', from: periodStart(period, now), to });
    const byKey = new Map(report.groups.map((group) => [group.key, group.cost]));
    for (const key of keys) if (key.spendingLimitPeriod === period) spend.set(key.id, byKey.get(key.id) ?? '0');
  }
  return spend;
}

/** Cost and tasks per key over the last 30 days (the usage report's default range). */
export const recentUsage = (deps: ConsoleDeps, accountId: string): Promise<UsageReport> => deps.usage.report(accountId, { groupBy: 'key' });
