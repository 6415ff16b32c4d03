import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { ACCOUNT_RETENTION_KINDS, type AccountRetentionKind, retentionProblem } from '../../domain/retention.js';
import { ACCOUNT_WEIGHT } from '../../domain/scheduling.js';
import { admin, adminPrint } from '../context.js';
import { EXIT, intOption, print, tableOr, UsageError, usdOption } from '../output.js';
import { type CommandContext, command } from '../run.js';

const accountLine = (a: AdminResult<'accounts.create'>) =>
  `${a.id}  ${a.name}  balance ${a.balance}  reserved ${a.reserved}  available ${a.available}  weight ${a.weight}`;

/** What the account keeps, and whether each is its own setting or the config's. */
const retentionLine = (a: AdminResult<'accounts.create'>) =>
  `retention: ${ACCOUNT_RETENTION_KINDS.map((kind) => `${kind} ${a.retention[kind]} (${a.retentionOverrides[kind] === undefined ? 'config' : 'this account'})`).join(', ')}`;

/** A --retain-<kind> value, checked here: a duration at or above the kind's floor, `off` or `default`. */
function retainOption(text: string | undefined, kind: AccountRetentionKind): string | undefined {
  if (text === undefined || text === 'default') return text;
  const problem = retentionProblem(kind, text);
  if (problem) throw new UsageError(`--retain-${kind}: ${problem}; "default" follows the config`);
  return text;
}

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('Manage accounts and their balances');

  accounts
    .command('create <name>')
    .description('Create an account, optionally with an initial credit in USD')
    .option('--credit <usd>', 'initial credit, for example 10 or 0.5')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, name: string, opts: { credit?: string }) => {
        // A first account may start a data dir where there is none (saying so on stderr).
        const account = await admin(
          ctx,
          'accounts.create',
          { name, credit: usdOption(opts.credit, '--credit') },
          'create',
        );
        print(ctx, account, () => `created ${accountLine(account)}`);
      }),
    );

  accounts
    .command('credit <account> <usd>')
    .description('Add credit (USD) to an account, named by name or id')
    .option('--note <text>', 'a note kept with the credit')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, account: string, usd: string, opts: { note?: string }) => {
        const result = await admin(ctx, 'accounts.credit', {
          account,
          amount: usdOption(usd, '<usd>') as string,
          note: opts.note,
        });
        print(ctx, result, () => `credited ${usd}: ${accountLine(result)}`);
      }),
    );

  accounts
    .command('set <account>')
    .description(
      "Change an account's settings: its scheduling weight, and how long its outputs, uploads and task records are kept",
    )
    .option(
      '--weight <n>',
      `its share of a lane while other accounts have work queued (weights 3 and 1 start 3 items to 1): ${ACCOUNT_WEIGHT.min} to ${ACCOUNT_WEIGHT.max}, default ${ACCOUNT_WEIGHT.default}`,
    )
    .option(
      '--retain-outputs <duration>',
      "how long a settled task keeps its outputs and text (7d, 12h; at least 1h), off (kept forever) or default (the config's retention.outputs)",
    )
    .option(
      '--retain-uploads <duration>',
      "how long an uploaded image is kept (at least 1h), off or default (the config's retention.uploads)",
    )
    .option(
      '--retain-tasks <duration>',
      "how long a settled task's record is kept (at least 31d), off or default (the config's retention.tasks)",
    )
    .option('--json', 'print one JSON document')
    .action(
      command(
        async (
          ctx,
          account: string,
          opts: { weight?: string; retainOutputs?: string; retainUploads?: string; retainTasks?: string },
        ) => {
          const weight = intOption(opts.weight, '--weight', ACCOUNT_WEIGHT.min, ACCOUNT_WEIGHT.max);
          const retention = {
            outputs: retainOption(opts.retainOutputs, 'outputs'),
            uploads: retainOption(opts.retainUploads, 'uploads'),
            tasks: retainOption(opts.retainTasks, 'tasks'),
          };
          const retains = Object.values(retention).some((value) => value !== undefined);
          if (weight === undefined && !retains)
            throw new UsageError('give what to change: --weight, --retain-outputs, --retain-uploads or --retain-tasks');
          const result = await admin(ctx, 'accounts.set', {
            account,
            weight,
            retention: retains ? retention : undefined,
          });
          print(ctx, result, () =>
            [`updated ${accountLine(result)}`, ...(retains ? [retentionLine(result)] : [])].join('\n'),
          );
        },
      ),
    );

  accounts
    .command('erase <account>')
    .description(
      "Erase an account for good: its keys are revoked; its webhooks, destinations, console sessions, uploads and every task's outputs and text removed; its name replaced by its id. The ledger keeps amounts and ids. Asks for the name again on a terminal",
    )
    .option('--yes', 'erase without asking for the name again (scripts)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, account: string, opts: { yes?: boolean }) => {
        if (!opts.yes && !(await confirmErase(ctx, account))) return EXIT.failure;
        const report = await admin(ctx, 'accounts.erase', { account });
        print(ctx, report, () => eraseText(report));
      }),
    );

  accounts
    .command('list')
    .description('List accounts with balances')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) =>
        adminPrint(ctx, 'accounts.list', {}, (list) =>
          tableOr(
            'no accounts yet: imgtask accounts create <name> --credit 10',
            ['ID', 'NAME', 'BALANCE', 'RESERVED', 'AVAILABLE', 'WEIGHT'],
            list.map((a) => [a.id, a.name, a.balance, a.reserved, a.available, String(a.weight)]),
          ),
        ),
      ),
    );

  accounts
    .command('show <account>')
    .description('Show an account: balance, reserved, available, weight, retention and its keys')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, account: string) =>
        adminPrint(ctx, 'accounts.show', { account }, (shown) =>
          [
            accountLine(shown),
            ...(shown.erasedAt
              ? [`erased ${shown.erasedAt}`]
              : shown.erasingSince
                ? [`being erased since ${shown.erasingSince}`]
                : [retentionLine(shown)]),
            tableOr(
              'no live API keys',
              ['KEY', 'PREVIEW', 'NAME', 'SPENT', 'LIMIT', 'PERIOD', 'MAX CONCURRENT', 'MAX PRIORITY'],
              shown.keys.map((k) => [
                k.id,
                k.keyPreview,
                k.name ?? '',
                k.periodSpend,
                k.spendingLimit ?? '-',
                `${k.spendingLimitPeriod} ${k.period}`,
                k.maxConcurrent === null ? '-' : String(k.maxConcurrent),
                String(k.maxPriority),
              ]),
            ),
          ].join('\n'),
        ),
      ),
    );
}

/**
 * Asks for the account's name again on a terminal (the answer must match it); without a terminal
 * the command needs --yes. False when the name typed does not match (nothing erased).
 */
async function confirmErase(ctx: CommandContext, account: string): Promise<boolean> {
  if (!process.stdin.isTTY)
    throw new UsageError(
      "accounts erase asks for the account's name again on a terminal; give --yes to erase without asking (scripts)",
    );
  const shown = await admin(ctx, 'accounts.show', { account });
  if (shown.erasedAt) return true;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(
      `This erases account ${shown.name} (${shown.id}) for good: its keys, webhooks, destinations, uploads, and every task's outputs and text.\n`,
    );
    const typed = (await prompt.question(`Type its name (${shown.name}) to erase it: `)).trim();
    if (typed === shown.name) return true;
    process.stderr.write(`not erased: "${typed}" is not the account's name\n`);
    return false;
  } finally {
    prompt.close();
  }
}

/** What an erase removed, a line each. */
function eraseText(report: AdminResult<'accounts.erase'>): string {
  const counts: [number, string][] = [
    [report.keys, 'API key(s) revoked'],
    [report.cancelled, 'pending task(s) cancelled'],
    [report.tasks, 'task(s) scrubbed (outputs, request, result, webhook payloads)'],
    [report.uploads, 'upload(s) removed'],
    [report.webhooks, 'webhook(s) removed, with their secrets'],
    [report.destinations, 'destination(s) removed, with their secrets'],
    [report.consoleSessions, 'console session(s) removed'],
    [report.idempotencyRecords, 'idempotency record(s) removed'],
    [report.deliveries, 'webhook delivery log(s) removed'],
  ];
  const lines = counts.filter(([count]) => count > 0).map(([count, words]) => `  ${count} ${words}`);
  const head = `erased ${report.id}${report.name ? ` (was ${report.name})` : ''} at ${report.erasedAt}`;
  return [head, ...(lines.length ? lines : ['  nothing was left to remove'])].join('\n');
}
