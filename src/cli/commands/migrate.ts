import type { Command } from 'commander';
import { print } from '../output.js';
import { command } from '../run.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply the pending schema migrations to the configured database (store.driver "postgres")')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        // The config schema and the PostgreSQL code load here, not when the CLI starts.
        const [{ loadConfig }, { migrateStore }] = await Promise.all([
          import('../../config/load.js'),
          import('../../app/store-backend.js'),
        ]);
        const outcome = await migrateStore(loadConfig({ file: ctx.config }));
        print(ctx, outcome, () => {
          if (outcome.driver === 'file')
            return 'the store is the data dir\'s journaled files (store.driver "file"): nothing to migrate';
          if (outcome.applied.length === 0)
            return `${outcome.database}: schema version ${outcome.to}, the latest: nothing to apply`;
          return [
            `${outcome.database}: schema version ${outcome.from} → ${outcome.to}, applied:`,
            ...outcome.applied.map((name) => `  ${name}`),
          ].join('\n');
        });
      }),
    );
}
