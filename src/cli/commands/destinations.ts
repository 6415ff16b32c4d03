import type { Command } from 'commander';
import type { AdminArgs, AdminResult } from '../../app/admin/ops.js';
import { accountListCommand } from '../account-list-command.js';
import { admin, adminPrint } from '../context.js';
import { enumOption, jsonOption, print } from '../output.js';
import { command } from '../run.js';

const describe = (d: AdminResult<'destinations.show'>) =>
  `${d.id}  ${d.name}  ${d.provider.id}  ${JSON.stringify(d.config)}`;
/** The storage providers a destination may use. */
const PROVIDERS = [
  'local',
  's3',
  'http',
] as const satisfies readonly AdminArgs<'destinations.create'>['provider']['id'][];
/** --settings: the provider config as a JSON object, checked by the server against the provider's schema. */
const settingsOption = (text: string) => jsonOption(text, '--settings') as Record<string, unknown>;

export function registerDestinationCommands(program: Command): void {
  const destinations = program
    .command('destinations')
    .description('Storage targets: local folders, S3-compatible buckets, HTTP PUT');

  destinations
    .command('create')
    .description('Create a destination for an account')
    .requiredOption('--account <account>', 'account name or id')
    .requiredOption('--name <name>', 'the name requests use (1 to 64 characters, unique per account)')
    .requiredOption('--provider <id>', 'local, s3 or http')
    .requiredOption(
      '--settings <json>',
      'the provider config as JSON, e.g. {"path":"/srv/images"} (the global --config names the server config file)',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; name: string; provider: string; settings: string }) => {
        const provider = {
          id: enumOption(opts.provider, '--provider', PROVIDERS),
        } as AdminArgs<'destinations.create'>['provider'];
        const created = await admin(ctx, 'destinations.create', {
          account: opts.account,
          name: opts.name,
          provider,
          config: settingsOption(opts.settings),
        });
        print(ctx, created, () => `created ${describe(created)}`);
      }),
    );

  accountListCommand(
    destinations,
    "List an account's destinations (secrets masked)",
    (ctx, account) => admin(ctx, 'destinations.list', { account }),
    { empty: 'no destinations', header: ['ID', 'NAME', 'PROVIDER'], row: (d) => [d.id, d.name, d.provider.id] },
  );

  destinations
    .command('show <id>')
    .description('Show a destination (secrets masked)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) => adminPrint(ctx, 'destinations.show', { id }, (shown) => describe(shown))),
    );

  destinations
    .command('update <id>')
    .description('Rename or reconfigure a destination (masked secrets given back keep their values)')
    .option('--name <name>', 'a new name')
    .option('--settings <json>', 'the whole new provider config as JSON')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: { name?: string; settings?: string }) => {
        const updated = await admin(ctx, 'destinations.update', {
          id,
          name: opts.name,
          config: opts.settings === undefined ? undefined : settingsOption(opts.settings),
        });
        print(ctx, updated, () => `updated ${describe(updated)}`);
      }),
    );

  destinations
    .command('delete <id>')
    .description('Delete a destination')
    .option('--json', 'print one JSON document')
    .action(command(async (ctx, id: string) => adminPrint(ctx, 'destinations.delete', { id }, () => `deleted ${id}`)));

  destinations
    .command('test <id>')
    .description('Write a small test object; exits 1 with the storage message when it refuses')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) =>
        adminPrint(
          ctx,
          'destinations.test',
          { id },
          (result) =>
            `test object written: ${result.key}${result.url ? ` (${result.url})` : ''}; ${result.deleted ? 'deleted again' : `not deleted: ${result.deleteError}`}`,
        ),
      ),
    );
}
