import type { ApiKeyView } from '../../services/api-keys.js';
import type { UsageGroupBy, UsageReport } from '../../services/usage.js';
import type { ChartSpec } from '../components/charts.js';
import type { ConsoleDeps } from '../console-deps.js';
import { keyLabel, NO_KEY_LABEL } from './format.js';
import { daysOf, type UsageRange } from './range.js';

export interface UsageReports {
  day: UsageReport;
  key: UsageReport;
  type: UsageReport;
  /** The account's live keys by id: names for the per-key figures. */
  keys: Map<string, ApiKeyView>;
}

/** The range's usage by day, by key and by type (three reports of the usage service, as GET /usage answers them). */
export async function loadReports(
  deps: ConsoleDeps,
  accountId: string,
  range: Pick<UsageRange, 'from' | 'to'>,
): Promise<UsageReports> {
  const report = (groupBy: UsageGroupBy) => deps.usage.report(accountId, { from: range.from, to: range.to, groupBy });
  const [day, key, type, keys] = await Promise.all([
    report('day'),
    report('key'),
    report('type'),
    deps.apiKeys.list(accountId),
  ]);
  return { day, key, type, keys: new Map(keys.map((k) => [k.id, k])) };
}

/** A per-key group's name: the key's name or preview, "No key" for access tokens, the id of a key since deleted. */
export function keyGroupLabel(keyId: string | null, keys: Map<string, ApiKeyView>): string {
  if (keyId === null) return NO_KEY_LABEL;
  const key = keys.get(keyId);
  return key ? keyLabel(key) : `${keyId} (deleted)`;
}

const usd = (cost: string): number => Number(cost);

/** Cost (bars, USD) and settled tasks (a line, on the right axis) per UTC day, every day of the range. */
export function dailyChart(report: UsageReport): ChartSpec {
  const byDay = new Map(report.groups.map((group) => [group.key, group]));
  const labels = daysOf(report.from, report.to);
  return {
    labels,
    axes: { left: 'USD', right: 'tasks' },
    series: [
      { label: 'Cost (USD)', values: labels.map((d) => usd(byDay.get(d)?.cost ?? '0')), tone: 'cost' },
      {
        label: 'Tasks settled',
        values: labels.map((d) => byDay.get(d)?.tasks ?? 0),
        draw: 'line',
        axis: 'right',
        tone: 'count',
      },
    ],
  };
}

/** Cost (bars) and tasks (bars, right axis) per group of a key or type report, labelled by `label`. */
export function groupChart(report: UsageReport, label: (key: string | null) => string): ChartSpec {
  return {
    labels: report.groups.map((group) => label(group.key)),
    axes: { left: 'USD', right: 'tasks' },
    series: [
      { label: 'Cost (USD)', values: report.groups.map((group) => usd(group.cost)), tone: 'cost' },
      { label: 'Tasks settled', values: report.groups.map((group) => group.tasks), axis: 'right', tone: 'count' },
    ],
  };
}
