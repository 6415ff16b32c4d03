import { formatUsd, parseUsd } from '../../domain/money.js';
import { periodKey } from '../../domain/periods.js';
import type { SpendingLimitPeriod } from '../../store/records.js';
import type { ConsoleDeps } from '../console-deps.js';
import { keyLabel } from '../usage/format.js';

export interface PeriodSpend {
  today: string;
  /** The ISO week, from Monday (UTC). */
  week: string;
  month: string;
}

/** The first day of the UTC day, ISO week (Monday) or month holding `now`, as YYYY-MM-DD. */
const periodStart = (period: SpendingLimitPeriod, now: number): string => {
  const key = periodKey(period, now).slice(2);
  return period === 'month' ? `${key}-01` : key;
};

/**
 * What the account was charged today, this week and this month (UTC), from the usage report:
 * one report by day from the earlier of the week's and the month's start, summed from each start.
 */
export async function spendByPeriod(deps: ConsoleDeps, accountId: string, now: number): Promise<PeriodSpend> {
  const starts = { today: periodStart('day', now), week: periodStart('week', now), month: periodStart('month', now) };
  const from = starts.week < starts.month ? starts.week : starts.month;
  // `to` is exclusive: one millisecond past now counts a task settled at this very instant.
  const report = await deps.usage.report(accountId, { from, to: new Date(now + 1).toISOString(), groupBy: 'day' });
  const since = (start: string) =>
    formatUsd(
      report.groups
        .filter((group) => group.key !== null && group.key >= start)
        .reduce((sum, group) => sum + parseUsd(group.cost)!, 0),
    );
  return { today: since(starts.today), week: since(starts.week), month: since(starts.month) };
}

export interface KeyLimit {
  keyId: string;
  label: string;
  /** Charged and reserved in the limit's current period. */
  spend: string;
  limit: string;
  period: SpendingLimitPeriod;
}

/**
 * Each live key with a spending limit, with its spend in the limit's current period (the operator service works it out
 * as the limit check does).
 */
export async function keyLimits(deps: ConsoleDeps, accountId: string, now: number): Promise<KeyLimit[]> {
  const detail = await deps.operator.accountDetail(accountId);
  // An expired key is gone, as the keys page and the API see it.
  const live = detail.keys.filter((key) => key.expiresAt === undefined || Date.parse(key.expiresAt) > now);
  return live.flatMap((key) =>
    key.spendingLimit === undefined
      ? []
      : [
          {
            keyId: key.id,
            label: keyLabel(key),
            spend: key.periodSpend,
            limit: key.spendingLimit,
            period: key.spendingLimitPeriod,
          },
        ],
  );
}
