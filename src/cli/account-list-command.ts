import type { Command } from 'commander';
import { print, tableOr } from './output.js';
import { type CommandContext, command } from './run.js';

/**
 * `<parent> list --account NAME`: an account's records (its keys, webhooks, destinations) as
 * one JSON document with --json, else a table of a `row` each, or the `empty` text.
 */
export function accountListCommand<Item>(
  parent: Command,
  description: string,
  load: (ctx: CommandContext, account: string) => Promise<Item[]>,
  listing: { empty: string; header: string[]; row: (item: Item) => string[] },
): void {
  parent
    .command('list')
    .description(description)
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string }) => {
        const list = await load(ctx, opts.account);
        print(ctx, list, () => tableOr(listing.empty, listing.header, list.map(listing.row)));
      }),
    );
}
