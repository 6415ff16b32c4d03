import type { Command } from 'commander';
import type { AdminArgs } from '../../app/admin/ops.js';
import { PERIODS } from '../../domain/periods.js';
import { API_KEY_SCOPES, isTokenOnlyScope } from '../../domain/scopes.js';
import { parseDuration } from '../../domain/time.js';
import { admin } from '../context.js';
import { durationOption, enumOption, intOption, listOption, print, printSecret, table, UsageError, usdOption } from '../output.js';
import { command } from '../run.js';

/** The route's bound on requestsPerMinute. */
const MAX_RPM = 1_000_000;

/** --expires-at: a duration from now ("30d") becomes a time; anything else goes to the server, which checks it. */
function expiryOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  return ms === null ? text : new Date(Date.now() + ms).toISOString();
}

const SHOWN_ONCE = 'This is the only time the key is shown.';

const describeLimits = (key: { requestsPerMinute?: number; expiresAt?: string }): string =>
  `${key.requestsPerMinute === undefined ? '' : `, ${key.requestsPerMinute} requests per minute`}${key.expiresAt === undefined ? '' : `, expires ${key.expiresAt}`}`;

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');

  keys
    .command('create')
    .description('Create an API key; the raw key is printed once')
    .requiredOption('--account <account>', 'account name or id')
    .option('--name <name>', 'a label for the key')
    .option('--scopes <list>', 'comma-separated scopes (default: every scope an API key may hold)')
    .option('--spending-limit <usd>', 'spending limit per period, in USD')
    .option('--period <period>', 'day, week or month (default month)')
    .option('--requests-per-minute <n>', 'requests the key may make per minute (default: no limit)')
    .option('--expires-at <time>', 'when the key stops working: an ISO date-time, or a duration from now such as 30d')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; name?: string; scopes?: string; spendingLimit?: string; period?: string; requestsPerMinute?: string; expiresAt?: string }) => {
        if (opts.period && !opts.spendingLimit) throw new UsageError('--period goes with --spending-limit');
        // The body of POST /api-key: the server checks scopes, amount and period.
        const args = {
          account: opts.account,
          name: opts.name,
          // A token-only scope goes on to the server, which says why a key cannot hold it.
          scopes: opts.scopes === undefined ? undefined : listOption(opts.scopes).map((s) => (isTokenOnlyScope(s) ? s : enumOption(s, '--scopes', API_KEY_SCOPES))),
          spendingLimit: usdOption(opts.spendingLimit, '--spending-limit'),
          spendingLimitPeriod: enumOption(opts.period, '--period', PERIODS),
          requestsPerMinute: intOption(opts.requestsPerMinute, '--requests-per-minute', 1, MAX_RPM),
          expiresAt: expiryOption(opts.expiresAt),
        } as AdminArgs<'keys.create'>;
        const created = await admin(ctx, 'keys.create', args);
        printSecret(ctx, created, {
          before: [`created ${created.apiKey.id} (${created.apiKey.scopes.join(' ')})${describeLimits(created.apiKey)}`],
          secret: created.raw,
          after: [SHOWN_ONCE],
        });
      }),
    );

  keys
    .command('list')
    .description("List an account's live API keys")
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string }) => {
        const list = await admin(ctx, 'keys.list', { account: opts.account });
        print(ctx, list, () =>
          list.length
            ? table([
                ['ID', 'PREVIEW', 'NAME', 'SCOPES', 'LIMIT', 'PERIOD', 'RPM', 'EXPIRES', 'LAST USED'],
                ...list.map((k) => [
                  k.id,
                  k.keyPreview,
                  k.name ?? '',
                  k.scopes.join(','),
                  k.spendingLimit ?? '-',
                  k.spendingLimitPeriod,
                  k.requestsPerMinute === undefined ? '-' : String(k.requestsPerMinute),
                  k.expiresAt ?? '-',
                  k.lastUsedAt ?? 'never',
                ]),
              ])
            : 'no live API keys',
        );
      }),
    );

  keys
    .command('update <id>')
    .description("Change a key's name, request limit, expiry or spending limit; none removes a setting")
    .option('--name <name>', 'a label for the key, or none')
    .option('--requests-per-minute <n>', 'requests the key may make per minute, or none')
    .option('--expires-at <time>', 'an ISO date-time, a duration from now such as 30d, or none')
    .option('--spending-limit <usd>', 'spending limit per period, in USD, or none')
    .option('--period <period>', 'day, week or month')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: { name?: string; requestsPerMinute?: string; expiresAt?: string; spendingLimit?: string; period?: string }) => {
        const orNone = <T>(text: string | undefined, parse: (text: string) => T): T | null | undefined => (text === undefined ? undefined : text === 'none' ? null : parse(text));
        const args = {
          id,
          name: orNone(opts.name, (name) => name),
          requestsPerMinute: orNone(opts.requestsPerMinute, (text) => intOption(text, '--requests-per-minute', 1, MAX_RPM)),
          expiresAt: orNone(opts.expiresAt, expiryOption),
          spendingLimit: orNone(opts.spendingLimit, (text) => usdOption(text, '--spending-limit')),
          spendingLimitPeriod: enumOption(opts.period, '--period', PERIODS),
        } as AdminArgs<'keys.update'>;
        const updated = await admin(ctx, 'keys.update', args);
        print(ctx, updated, () => `updated ${updated.id}${describeLimits(updated)}`);
      }),
    );

  keys
    .command('rotate <id>')
    .description('Replace a key by a new raw key with the same settings; the old key works for a grace period')
    .option('--grace <duration>', 'how long the old key keeps working: a duration such as 1h, or 0 to revoke it now (default 24h)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: { grace?: string }) => {
        const graceSeconds = opts.grace === undefined ? undefined : opts.grace.trim() === '0' ? 0 : Math.ceil(parseDuration(durationOption(opts.grace, '--grace')!)! / 1000);
        const rotated = await admin(ctx, 'keys.rotate', { id, graceSeconds });
        const old = rotated.previous.expiresAt ? `${id} works until ${rotated.previous.expiresAt}` : `${id} is revoked`;
        printSecret(ctx, rotated, { before: [`created ${rotated.apiKey.id}; ${old}`], secret: rotated.raw, after: [SHOWN_ONCE] });
      }),
    );

  keys
    .command('revoke <id>')
    .description('Revoke (delete) an API key; it stops working at once')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) => {
        const revoked = await admin(ctx, 'keys.revoke', { id });
        print(ctx, revoked, () => `revoked ${revoked.id}`);
      }),
    );
}
