import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { bytesText } from '../../domain/bytes.js';
import { admin } from '../context.js';
import { enumOption, print, table, UsageError } from '../output.js';
import { command } from '../run.js';

const GROUP_BY = ['day', 'key', 'type', 'model'] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. */
const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csvLine = (fields: string[]): string => `${fields.map(csvField).join(',')}\r\n`;

/**
 * The report as CSV: a header row (the grouping, cost, tasks, items), then one row per group; a null key is an empty
 * field.
 */
export function usageCsv(report: AdminResult<'usage'>): string {
  return [
    csvLine([report.groupBy, 'cost_usd', 'tasks', 'items']),
    ...report.groups.map((g) => csvLine([g.key ?? '', g.cost, String(g.tasks), String(g.items)])),
  ].join('');
}

/** What the account stores now, in one line: `stored now: 1.2 MiB (outputs 1.0 MiB; 3 uploads, 204.8 KiB)`. */
const storedLine = ({ bytes, outputs, uploads }: AdminResult<'usage'>['storage']): string =>
  `stored now: ${bytesText(bytes)} (outputs ${bytesText(outputs.bytes)}; ${uploads.count} upload${uploads.count === 1 ? '' : 's'}, ${bytesText(uploads.bytes)})`;

export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description(
      "An account's charges by settlement time, grouped by day, API key, task type or model, and the bytes it stores now (as GET /usage)",
    )
    .requiredOption('--account <account>', 'account name or id')
    .option(
      '--from <when>',
      'start, inclusive: 2026-11-01 (midnight UTC) or an ISO date-time with an offset (default: 30 days before --to)',
    )
    .option('--to <when>', 'end, exclusive, in the same forms (default: now)')
    .option('--group-by <what>', 'day, key, type or model (default day)')
    .option('--csv', 'print CSV (RFC 4180): a header row, then one row per group')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; from?: string; to?: string; groupBy?: string; csv?: boolean }) => {
        if (opts.csv && ctx.json) throw new UsageError('--csv and --json are exclusive');
        const report = await admin(ctx, 'usage', {
          account: opts.account,
          from: opts.from,
          to: opts.to,
          groupBy: enumOption(opts.groupBy, '--group-by', GROUP_BY),
        });
        if (opts.csv) {
          process.stdout.write(usageCsv(report));
          return;
        }
        print(ctx, report, () => {
          const rows = report.groups.map((g) => [g.key ?? '-', g.cost, String(g.tasks), String(g.items)]);
          return [
            `usage ${report.from} .. ${report.to} (to exclusive), by ${report.groupBy}`,
            table([
              [report.groupBy.toUpperCase(), 'COST (USD)', 'TASKS', 'ITEMS'],
              ...rows,
              ['total', report.total.cost, String(report.total.tasks), String(report.total.items)],
            ]),
            storedLine(report.storage),
          ].join('\n');
        });
      }),
    );
}
