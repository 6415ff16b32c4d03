import type { Command } from 'commander';
import type { AdminArgs } from '../../app/admin/ops.js';
import { PERIODS } from '../../domain/periods.js';
import { API_KEY_SCOPES, isTokenOnlyScope } from '../../domain/scopes.js';
import { admin } from '../context.js';
import { enumOption, listOption, print, table, UsageError, usdOption } from '../output.js';
import { command } from '../run.js';

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');

  keys
    .command('create')
    .description('Create an API key; the raw key is printed once')
    .requiredOption('--account <account>', 'account name or id')
    .option('--name <name>', 'a label for the key')
    .option('--scopes <list>', 'comma-separated scopes (default: every scope an API key may hold)')
    .option('--spending-limit <usd>', 'spending limit per period, in USD')
    .option('--period <period>', 'day, week or month (default month)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; name?: string; scopes?: string; spendingLimit?: string; period?: string }) => {
        if (opts.period && !opts.spendingLimit) throw new UsageError('--period goes with --spending-limit');
        // The body of POST /api-key: the server checks scopes, amount and period.
        const args = {
          account: opts.account,
          name: opts.name,
          // A token-only scope goes on to the server, which says why a key cannot hold it.
          scopes: opts.scopes === undefined ? undefined : listOption(opts.scopes).map((s) => (isTokenOnlyScope(s) ? s : enumOption(s, '--scopes', API_KEY_SCOPES))),
          spendingLimit: usdOption(opts.spendingLimit, '--spending-limit'),
          spendingLimitPeriod: enumOption(opts.period, '--period', PERIODS),
        } as AdminArgs<'keys.create'>;
        const created = await admin(ctx, 'keys.create', args);
        print(ctx, created, () => `created ${created.apiKey.id} (${created.apiKey.scopes.join(' ')})\n${created.raw}\nThis is the only time the key is shown.`);
      }),
    );

  keys
    .command('list')
    .description("List an account's live API keys")
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string }) => {
        const list = await admin(ctx, 'keys.list', { account: opts.account });
        print(ctx, list, () =>
          list.length
            ? table([['ID', 'PREVIEW', 'NAME', 'SCOPES', 'LIMIT', 'PERIOD'], ...list.map((k) => [k.id, k.keyPreview, k.name ?? '', k.scopes.join(','), k.spendingLimit ?? '-', k.spendingLimitPeriod])])
            : 'no live API keys',
        );
      }),
    );

  keys
    .command('revoke <id>')
    .description('Revoke (delete) an API key; it stops working at once')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) => {
        const revoked = await admin(ctx, 'keys.revoke', { id });
        print(ctx, revoked, () => `revoked ${revoked.id}`);
      }),
    );
}
