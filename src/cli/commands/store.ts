import type { Command } from 'commander';
import { EXIT, print } from '../output.js';
import { command } from '../run.js';

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
        const [{ loadConfig }, { exportStore }, { onDataDir }] = await Promise.all([
          import('../../config/load.js'),
          import('../../app/store-dump.js'),
          import('../data-dir-guard.js'),
        ]);
        const config = loadConfig({ file: ctx.config });
        const run = () => exportStore(config, ctx.data, file);
        // A file store is read from the data dir, which must be there; PostgreSQL needs none.
        const outcome = config.store.driver === 'file' ? await onDataDir(ctx.data, 'existing', run) : await run();
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
        const [{ loadConfig }, { importStore }, { onDataDir }] = await Promise.all([
          import('../../config/load.js'),
          import('../../app/store-dump.js'),
          import('../data-dir-guard.js'),
        ]);
        const config = loadConfig({ file: ctx.config });
        const run = () => importStore(config, ctx.data, file);
        // Into a file store: a new data dir is made when there is none, and said so.
        const outcome = config.store.driver === 'file' ? await onDataDir(ctx.data, 'create', run) : await run();
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
