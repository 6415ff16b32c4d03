import { resolve } from 'node:path';
import type { Command } from 'commander';
import { startServer } from '../../app/server.js';
import { loadConfig } from '../../config/load.js';
import { print, UsageError } from '../output.js';
import { command } from '../run.js';

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP API and the workers on the data dir')
    .option('--host <host>', 'address to listen on (default: server.host)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: server.port)')
    .option('--json', 'print one JSON document once listening')
    .action(
      command(async (ctx, opts: { host?: string; port?: string }) => {
        const port = opts.port === undefined ? undefined : Number(opts.port);
        if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError(`--port: not a port number: ${opts.port}`);
        const config = loadConfig({ file: ctx.config, flags: { host: opts.host, port } });
        const server = await startServer({
          dataDir: ctx.data,
          config,
          configFile: ctx.config ? { path: ctx.config, flags: { host: opts.host, port } } : undefined,
          log,
          onFatal: (err) => {
            log(`fatal: ${err.message}; stopping`);
            process.exit(1);
          },
        });
        const dataDir = resolve(ctx.data);
        print(ctx, { url: server.url, dataDir, firstStart: server.services.firstStart }, () => {
          const lines = [`imgtask listening on ${server.url} (data dir ${dataDir})`];
          if (server.services.firstStart) {
            lines.push(
              'First start: the data dir is new. To get going, in another terminal:',
              '  npx imgtask accounts create demo --credit 10      # an account with 10 USD',
              '  npx imgtask keys create --account demo            # an API key (mak_…) for the image routes',
              '  npx imgtask tokens issue --account demo           # an access token for /api-key, /webhook, /destinations',
            );
          }
          return lines.join('\n');
        });
        const stop = (signal: string) => {
          log(`${signal}: stopping`);
          server.close().then(
            () => process.exit(0),
            (err: Error) => {
              log(`stop failed: ${err.message}`);
              process.exit(1);
            },
          );
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      }),
    );
}
