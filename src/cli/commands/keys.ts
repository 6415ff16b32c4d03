import type { Command } from 'commander';
import type { ApiKeyView } from '../../app/admin-ops.js';
import { action, admin } from '../context.js';
import { print, table, UsageError } from '../output.js';

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
      action(async (g, opts: { account: string; name?: string; scopes?: string; spendingLimit?: string; period?: string }, cmd: Command) => {
        if (opts.period && !opts.spendingLimit) throw new UsageError('--period goes with --spending-limit');
        const created = (await admin(cmd, 'keys.create', { account: opts.account, name: opts.name, scopes: opts.scopes, spendingLimit: opts.spendingLimit, period: opts.period })) as {
          apiKey: ApiKeyView;
          raw: string;
        };
        print(g, created, () => `created ${created.apiKey.id} (${created.apiKey.scopes.join(' ')})\n${created.raw}\nThis is the only time the key is shown.`);
      }),
    );

  keys
    .command('list')
    .description("List an account's live API keys")
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string }, cmd: Command) => {
        const list = (await admin(cmd, 'keys.list', { account: opts.account })) as ApiKeyView[];
        print(g, list, () =>
          list.length ? table([['ID', 'PREVIEW', 'NAME', 'SCOPES', 'LIMIT', 'PERIOD'], ...list.map((k) => [k.id, k.keyPreview, k.name ?? '', k.scopes.join(','), k.spendingLimit ?? '-', k.spendingLimitPeriod])]) : 'no live API keys',
        );
      }),
    );

  keys
    .command('revoke <id>')
    .description('Revoke (delete) an API key; it stops working at once')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, id: string, _opts: unknown, cmd: Command) => {
        const revoked = (await admin(cmd, 'keys.revoke', { id })) as ApiKeyView;
        print(g, revoked, () => `revoked ${revoked.id}`);
      }),
    );
}
