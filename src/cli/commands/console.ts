import type { Command } from 'commander';
import { admin, adminPrint } from '../context.js';
import { print, printSecret, tableOr, UsageError } from '../output.js';
import { command } from '../run.js';

export function registerConsoleCommands(program: Command): void {
  const web = program
    .command('console')
    .description('Print a one-time sign-in link to the web console (/console); manage console sessions')
    .option('--account <account>', 'the account to sign in as (name or id)')
    .option('--operator', 'the operator view, across accounts')
    .option('--next <path>', 'the console page to open after sign-in, such as /console/gallery')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account?: string; operator?: boolean; next?: string }) => {
        if ((opts.account === undefined) === !opts.operator)
          throw new UsageError('give --account NAME, or --operator for the operator view');
        const link = await admin(ctx, 'console.link', {
          account: opts.account,
          operator: opts.operator,
          next: opts.next,
        });
        const who = link.account === null ? 'the operator view' : `account ${link.account}`;
        printSecret(ctx, link, {
          secret: link.url,
          before: [`Sign-in link for ${who} (single use, valid until ${link.expiresAt}):`],
        });
      }),
    );

  const sessions = web.command('sessions').description('Console sessions and unused sign-in links');
  sessions
    .command('list')
    .description('List the console sessions and links not expired yet')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const list = await admin(ctx, 'console.sessions.list', {});
        const state = (s: (typeof list)[number]) =>
          s.revokedAt ? 'revoked' : s.kind === 'link' ? (s.usedAt ? 'used' : 'unused') : 'live';
        print(ctx, list, () =>
          tableOr(
            'no console sessions',
            ['ID', 'KIND', 'ACCOUNT', 'STATE', 'CREATED', 'EXPIRES', 'BROWSER'],
            list.map((s) => [
              s.id,
              s.kind,
              s.account ?? '(operator)',
              state(s),
              s.createdAt,
              s.expiresAt,
              s.userAgent ?? '',
            ]),
          ),
        );
      }),
    );
  sessions
    .command('revoke <id>')
    .description('End a console session (or cancel an unused link) at once')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) =>
        adminPrint(ctx, 'console.sessions.revoke', { id }, () => `console session ${id} revoked`),
      ),
    );
}
