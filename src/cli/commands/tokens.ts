import type { Command } from 'commander';
import { ALL_SCOPES } from '../../domain/scopes.js';
import { admin } from '../context.js';
import { durationOption, enumListOption, printSecret } from '../output.js';
import { command } from '../run.js';

export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('Issue OAuth access tokens');
  tokens
    .command('issue')
    .description('Issue an OAuth access token for an account')
    .requiredOption('--account <account>', 'account name or id')
    .option('--scopes <list>', 'comma-separated scopes (default: every scope but workflow:raw, given only by name)')
    .option('--ttl <duration>', 'lifetime such as 15m, 1h or 30d (default: auth.accessTokenTtl)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; scopes?: string; ttl?: string }) => {
        const scopes = opts.scopes === undefined ? undefined : enumListOption(opts.scopes, '--scopes', ALL_SCOPES);
        const issued = await admin(ctx, 'tokens.issue', {
          account: opts.account,
          scopes,
          ttl: durationOption(opts.ttl, '--ttl'),
        });
        printSecret(ctx, issued, { secret: issued.accessToken, after: [`expires ${issued.expiresAt}`] });
      }),
    );
}
