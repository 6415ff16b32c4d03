import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { ACCOUNT_WEIGHT } from '../../domain/scheduling.js';
import { admin } from '../context.js';
import { intOption, print, table, usdOption } from '../output.js';
import { command } from '../run.js';

const accountLine = (a: AdminResult<'accounts.create'>) => `${a.id}  ${a.name}  balance ${a.balance}  reserved ${a.reserved}  available ${a.available}  weight ${a.weight}`;

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
        const account = await admin(ctx, 'accounts.create', { name, credit: usdOption(opts.credit, '--credit') }, 'create');
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
        const result = await admin(ctx, 'accounts.credit', { account, amount: usdOption(usd, '<usd>') as string, note: opts.note });
        print(ctx, result, () => `credited ${usd}: ${accountLine(result)}`);
      }),
    );

  accounts
    .command('set <account>')
    .description("Change an account's settings: its scheduling weight")
    .requiredOption(
      '--weight <n>',
      `its share of a lane while other accounts have work queued (weights 3 and 1 start 3 items to 1): ${ACCOUNT_WEIGHT.min} to ${ACCOUNT_WEIGHT.max}, default ${ACCOUNT_WEIGHT.default}`,
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, account: string, opts: { weight: string }) => {
        const result = await admin(ctx, 'accounts.set', { account, weight: intOption(opts.weight, '--weight', ACCOUNT_WEIGHT.min, ACCOUNT_WEIGHT.max)! });
        print(ctx, result, () => `updated ${accountLine(result)}`);
      }),
    );

  accounts
    .command('list')
    .description('List accounts with balances')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const list = await admin(ctx, 'accounts.list', {});
        print(ctx, list, () =>
          list.length === 0
            ? 'no accounts yet: imgtask accounts create <name> --credit 10'
            : table([['ID', 'NAME', 'BALANCE', 'RESERVED', 'AVAILABLE', 'WEIGHT'], ...list.map((a) => [a.id, a.name, a.balance, a.reserved, a.available, String(a.weight)])]),
        );
      }),
    );

  accounts
    .command('show <account>')
    .description('Show an account: balance, reserved, available, weight and its keys')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, account: string) => {
        const shown = await admin(ctx, 'accounts.show', { account });
        print(ctx, shown, () =>
          [
            accountLine(shown),
            shown.keys.length
              ? table([
                  ['KEY', 'PREVIEW', 'NAME', 'SPENT', 'LIMIT', 'PERIOD', 'MAX CONCURRENT', 'MAX PRIORITY'],
                  ...shown.keys.map((k) => [
                    k.id,
                    k.keyPreview,
                    k.name ?? '',
                    k.periodSpend,
                    k.spendingLimit ?? '-',
                    `${k.spendingLimitPeriod} ${k.period}`,
                    k.maxConcurrent === null ? '-' : String(k.maxConcurrent),
                    String(k.maxPriority),
                  ]),
                ])
              : 'no live API keys',
          ].join('\n'),
        );
      }),
    );
}
