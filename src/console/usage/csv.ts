import { stringify } from 'csv-stringify/sync';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { UsageReport } from '../../services/usage.js';
import { keyGroupLabel } from './report.js';

/**
 * A usage report as CSV: a header row, then one row per group (the day, key, type or model; for
 * keys, their names too), its cost in USD, tasks and items; no total row (a spreadsheet sums).
 * A cell starting with =, +, -, @, a tab or a carriage return (a key named `=HYPERLINK(…)`) is
 * written with a leading ' (csv-stringify's escape_formulas), so a spreadsheet shows it as text
 * and never runs it as a formula.
 */
export function usageCsv(report: UsageReport, keys: Map<string, ApiKeyView>): string {
  const byKey = report.groupBy === 'key';
  const header = [report.groupBy, ...(byKey ? ['name'] : []), 'cost_usd', 'tasks', 'items'];
  const rows = report.groups.map((group) => [
    group.key ?? '',
    ...(byKey ? [keyGroupLabel(group.key, keys)] : []),
    group.cost,
    group.tasks,
    group.items,
  ]);
  return stringify([header, ...rows], { escape_formulas: true, record_delimiter: 'windows' });
}

/** The download's file name: imgtask-usage-<from>-<to>-<groupBy>.csv, with the range's UTC dates. */
export const usageCsvName = (report: UsageReport): string =>
  `imgtask-usage-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}-${report.groupBy}.csv`;
