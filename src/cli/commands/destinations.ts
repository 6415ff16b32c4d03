import type { Command } from 'commander';
import { action, admin } from '../context.js';
import { print, table } from '../output.js';

interface DestinationOut {
  id: string;
  name: string;
  provider: { id: string };
  config: Record<string, unknown>;
}

const describe = (d: DestinationOut) => `${d.id}  ${d.name}  ${d.provider.id}  ${JSON.stringify(d.config)}`;

export function registerDestinationCommands(program: Command): void {
  const destinations = program.command('destinations').description('Storage targets: local folders, S3-compatible buckets, HTTP PUT');

  destinations
    .command('create')
    .description('Create a destination for an account')
    .requiredOption('--account <account>', 'account name or id')
    .requiredOption('--name <name>', 'the name requests use (1 to 64 characters, unique per account)')
    .requiredOption('--provider <id>', 'local, s3 or http')
    .requiredOption('--settings <json>', 'the provider config as JSON, e.g. {"path":"/srv/images"} (the global --config names the server config file)')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string; name: string; provider: string; settings: string }, cmd: Command) => {
        const created = (await admin(cmd, 'destinations.create', { account: opts.account, name: opts.name, provider: opts.provider, config: opts.settings })) as DestinationOut;
        print(g, created, () => `created ${describe(created)}`);
      }),
    );

  destinations
    .command('list')
    .description("List an account's destinations (secrets masked)")
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string }, cmd: Command) => {
        const list = (await admin(cmd, 'destinations.list', { account: opts.account })) as DestinationOut[];
        print(g, list, () => (list.length ? table([['ID', 'NAME', 'PROVIDER'], ...list.map((d) => [d.id, d.name, d.provider.id])]) : 'no destinations'));
      }),
    );

  destinations
    .command('update <id>')
    .description('Rename or reconfigure a destination (masked secrets given back keep their values)')
    .option('--name <name>', 'a new name')
    .option('--settings <json>', 'the whole new provider config as JSON')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, id: string, opts: { name?: string; settings?: string }, cmd: Command) => {
        const updated = (await admin(cmd, 'destinations.update', { id, name: opts.name, config: opts.settings })) as DestinationOut;
        print(g, updated, () => `updated ${describe(updated)}`);
      }),
    );

  for (const [name, op, description] of [
    ['show', 'destinations.show', 'Show a destination (secrets masked)'],
    ['delete', 'destinations.delete', 'Delete a destination'],
    ['test', 'destinations.test', 'Write a small test object; exits 1 with the storage message when it refuses'],
  ] as const) {
    destinations
      .command(`${name} <id>`)
      .description(description)
      .option('--json', 'print one JSON document')
      .action(
        action(async (g, id: string, _opts: unknown, cmd: Command) => {
          const result = (await admin(cmd, op, { id })) as DestinationOut & { key?: string; url?: string | null };
          print(g, result, () => (name === 'delete' ? `deleted ${id}` : name === 'test' ? `test object written: ${result.key}${result.url ? ` (${result.url})` : ''}` : describe(result)));
        }),
      );
  }
}
