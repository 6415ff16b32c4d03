import type { Command } from 'commander';
import { action, admin } from '../context.js';
import { print } from '../output.js';

export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('Issue OAuth access tokens');
  tokens
    .command('issue')
    .description('Issue an OAuth access token for an account')
    .requiredOption('--account <account>', 'account name or id')
    .option('--scopes <list>', 'comma-separated scopes (default: every scope)')
    .option('--ttl <duration>', 'lifetime such as 15m, 1h or 30d (default: auth.accessTokenTtl)')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string; scopes?: string; ttl?: string }, cmd: Command) => {
        const issued = (await admin(cmd, 'tokens.issue', { account: opts.account, scopes: opts.scopes, ttl: opts.ttl })) as { accessToken: string; expiresAt: string };
        print(g, issued, () => `${issued.accessToken}\nexpires ${issued.expiresAt}`);
      }),
    );
}
