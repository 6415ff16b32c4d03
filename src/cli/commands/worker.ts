import { resolve } from 'node:path';
import type { Command } from 'commander';
import { print, UsageError } from '../output.js';
import { command } from '../run.js';
import { stopOnSignals } from '../stop-on-signals.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'Run the task lanes, the webhook dispatch and the sweep on a PostgreSQL store, with no HTTP API (any number of them, beside serve --no-work)',
    )
    .option('--json', 'print one JSON document once working')
    .action(
      command(async (ctx) => {
        const [{ startWorker, roleProblem }, { loadConfig }, { createLogger }] = await Promise.all([
          import('../../app/server.js'),
          import('../../config/load.js'),
          import('../../app/logger.js'),
        ]);
        const config = loadConfig({ file: ctx.config });
        const problem = roleProblem('work', config.store.driver);
        if (problem) throw new UsageError(problem);
        const logger = createLogger(config.log);
        const worker = await startWorker({
          dataDir: ctx.data,
          config,
          configFile: ctx.config ? { path: ctx.config, flags: {} } : undefined,
          logger,
          onFatal: (err) => {
            logger.fatal({ err }, `fatal: ${err.message}; stopping`);
            process.exit(1);
          },
        });
        const dataDir = resolve(ctx.data);
        print(
          ctx,
          { workerId: worker.workerId, dataDir },
          () => `imgtask worker ${worker.workerId} working (data dir ${dataDir})`,
        );
        logger.info(
          { event: 'worker.started', workerId: worker.workerId, dataDir },
          `worker ${worker.workerId} started`,
        );
        stopOnSignals(logger, 'worker.stopping', () => worker.close());
      }),
    );
}
