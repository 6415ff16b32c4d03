import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import type { DataDirUse } from '../data-dir-guard.js';
import { EXIT, print } from '../output.js';
import { type CommandContext, command } from '../run.js';

const KINDS = ['account', 'credit', 'apiKey', 'task', 'secret', 'webhook', 'event', 'delivery', 'destination'] as const;
const LABELS: Record<(typeof KINDS)[number], [one: string, many: string]> = {
  account: ['account', 'accounts'],
  credit: ['credit', 'credits'],
  apiKey: ['API key', 'API keys'],
  task: ['task', 'tasks'],
  secret: ['secret', 'secrets'],
  webhook: ['webhook', 'webhooks'],
  event: ['event', 'events'],
  delivery: ['delivery', 'deliveries'],
  destination: ['destination', 'destinations'],
};

const countsText = (counts: Record<(typeof KINDS)[number], number>): string =>
  KINDS.map((kind) => `${counts[kind]} ${LABELS[kind][counts[kind] === 1 ? 0 : 1]}`).join(', ');

/**
 * Runs `run` on the store the config names: a file store is the data dir's, which `use` says
 * must be there already or may be made (see data-dir-guard.ts); PostgreSQL needs no data dir.
 */
async function onConfiguredStore<T>(
  ctx: CommandContext,
  use: DataDirUse,
  run: (config: Config) => Promise<T>,
): Promise<T> {
  const [{ loadConfig }, { onDataDir }] = await Promise.all([
    import('../../config/load.js'),
    import('../data-dir-guard.js'),
  ]);
  const config = loadConfig({ file: ctx.config });
  return config.store.driver === 'file' ? onDataDir(ctx.data, use, () => run(config)) : run(config);
}

export function registerStoreCommands(program: Command): void {
  const store = program
    .command('store')
    .description('Move the store between backends: export to a dump file, import into an empty store');

  store
    .command('export <file>')
    .description(
      'Write every record of the configured store to FILE (JSON Lines); a file store must not be held by a running server',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, file: string) => {
        const { exportStore } = await import('../../app/store-dump.js');
        // A file store is read from the data dir, which must be there.
        const outcome = await onConfiguredStore(ctx, 'existing', (config) => exportStore(config, ctx.data, file));
        print(
          ctx,
          outcome,
          () => `exported the ${outcome.from} store to ${outcome.file}: ${countsText(outcome.counts)}`,
        );
      }),
    );

  store
    .command('import <file>')
    .description(
      'Load a dump into the configured store, which must be empty (all or nothing), then check the ledger; exits 1 when it is broken',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, file: string) => {
        const { importStore } = await import('../../app/store-dump.js');
        // Into a file store: a new data dir is made when there is none, and said so.
        const outcome = await onConfiguredStore(ctx, 'create', (config) => importStore(config, ctx.data, file));
        const { doctor } = outcome;
        print(ctx, outcome, () =>
          [
            `imported ${outcome.file} into ${outcome.into}: ${countsText(outcome.counts)}`,
            doctor.ok
              ? `ledger ok: ${doctor.checked.accounts} accounts, ${doctor.checked.keys} keys, ${doctor.checked.tasks} tasks checked`
              : [
                  `ledger BROKEN (${doctor.problems.length} problem(s)):`,
                  ...doctor.problems.map((p) => `  - ${p}`),
                ].join('\n'),
            ...outcome.notes.map((note) => `note: ${note}`),
          ].join('\n'),
        );
        return doctor.ok ? EXIT.ok : EXIT.failure;
      }),
    );
}
