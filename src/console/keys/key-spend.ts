import type { UsageReport } from '../../services/usage.js';
import type { ConsoleDeps } from '../console-deps.js';

/**
 * What each key has spent in its limit's current period (UTC day, ISO week or month): charged
 * and reserved, the very sum the spending limit is checked against (the overview and the
 * operator view show the same figure).
 */
export async function periodSpend(deps: ConsoleDeps, accountId: string): Promise<Map<string, string>> {
  const detail = await deps.operator.accountDetail(accountId);
  return new Map(detail.keys.map((key) => [key.id, key.periodSpend]));
}

/** Cost and tasks per key over the last 30 days (the usage report's default range). */
export const recentUsage = (deps: ConsoleDeps, accountId: string): Promise<UsageReport> =>
  deps.usage.report(accountId, { groupBy: 'key' });
