import { resolve } from 'node:path';
import type { Command } from 'commander';
import { thisCli } from '../invocation.js';
import { firstSteps } from '../next-steps.js';
import { intOption, print, UsageError } from '../output.js';
import { command } from '../run.js';
import { stopOnSignals } from '../stop-on-signals.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP API and the workers on the data dir')
    .option('--host <host>', 'address to listen on (default: server.host)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: server.port)')
    .option('--json', 'print one JSON document once listening')
    .option(
      '--no-work',
      'serve the API only: no task runner, webhook dispatcher or sweep (store.driver postgres, with imgtask worker processes doing the work)',
    )
    .action(
      command(async (ctx, opts: { host?: string; port?: string; work: boolean }) => {
        const port = intOption(opts.port, '--port', 0, 65535);
        // The server and the config schema load here, not when the CLI starts (imgtask --help stays fast).
        const [{ startServer }, { loadConfig }, { createLogger }, { registerServer }] = await Promise.all([
          import('../../app/server.js'),
          import('../../config/load.js'),
          import('../../app/logger.js'),
          import('../../app/server-registry.js'),
        ]);
        const config = loadConfig({ file: ctx.config, flags: { host: opts.host, port } });
        const role = opts.work ? 'all' : 'api';
        const { roleProblem } = await import('../../app/server.js');
        const problem = roleProblem(role, config.store.driver);
        if (problem) throw new UsageError(problem);
        // The service log, on stdout: JSON lines, or pretty ones on a terminal (log.format).
        const logger = createLogger(config.log);
        const server = await startServer({
          dataDir: ctx.data,
          config,
          configFile: ctx.config ? { path: ctx.config, flags: { host: opts.host, port } } : undefined,
          logger,
          role,
          onFatal: (err) => {
            logger.fatal({ err }, `fatal: ${err.message}; stopping`);
            process.exit(1);
          },
        });
        const dataDir = resolve(ctx.data);
        // So that an operator command run where there is no data dir can point at this one.
        await registerServer({ dataDir, url: server.url });
        print(ctx, { url: server.url, dataDir, firstStart: server.firstStart }, () => {
          const lines = [`imgtask listening on ${server.url} (data dir ${dataDir})`];
          // Commands that work as printed where this was started: the CLI as the user can type it, this data dir and
          // config.
          if (server.firstStart) lines.push(...firstSteps(thisCli(), ctx, process.cwd()));
          return lines.join('\n');
        });
        logger.info({ event: 'server.listening', url: server.url, dataDir }, `listening on ${server.url}`);
        stopOnSignals(logger, 'server.stopping', () => server.close());
      }),
    );
}
