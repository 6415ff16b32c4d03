import type { Command } from 'commander';
import { admin, adminPrint } from '../context.js';
import { print, tableOr, UsageError } from '../output.js';
import { command } from '../run.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function registerSecretCommands(program: Command): void {
  const secrets = program
    .command('secrets')
    .description('Secrets encrypted at rest (provider keys): set, list, delete');

  secrets
    .command('set <name>')
    .description('Store a secret; the value comes from standard input (keeps it out of shell history) or --value')
    .option('--value <value>', 'the value (prefer standard input)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, name: string, opts: { value?: string }) => {
        const value = opts.value ?? (process.stdin.isTTY ? undefined : await readStdin());
        if (!value)
          throw new UsageError(
            'give the value on standard input (echo "$KEY" | imgtask secrets set NAME) or with --value',
          );
        // Provider keys may be set before the first start: a data dir is made when there is none.
        const saved = await admin(ctx, 'secrets.set', { name, value }, 'create');
        print(ctx, saved, () => `secret ${saved.name} saved (encrypted)`);
      }),
    );

  secrets
    .command('list')
    .description('List secret names (never their values)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) =>
        adminPrint(ctx, 'secrets.list', {}, (list) =>
          tableOr(
            'no secrets',
            ['NAME', 'UPDATED'],
            list.map((s) => [s.name, s.updatedAt]),
          ),
        ),
      ),
    );

  secrets
    .command('delete <name>')
    .description('Delete a secret')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, name: string) => adminPrint(ctx, 'secrets.delete', { name }, () => `secret ${name} deleted`)),
    );
}
