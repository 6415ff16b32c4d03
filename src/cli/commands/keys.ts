import type { Command } from 'commander';
import type { AdminArgs } from '../../app/admin/ops.js';
import { PERIODS } from '../../domain/periods.js';
import { MAX_CONCURRENT_BOUND, PRIORITY } from '../../domain/scheduling.js';
import { API_KEY_SCOPES, isTokenOnlyScope } from '../../domain/scopes.js';
import { parseDuration } from '../../domain/time.js';
import { accountListCommand } from '../account-list-command.js';
import { admin, adminPrint } from '../context.js';
import {
  durationOption,
  enumOption,
  intOption,
  listOption,
  print,
  printSecret,
  UsageError,
  usdOption,
} from '../output.js';
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
/**
 * After the key on a terminal: how the client commands get it. Not when the key is captured
 * (`export IMGTASK_API_KEY=$(imgtask keys create …)`, the README's way), where it would be noise.
 */
const keyNotes = (ctx: { json: boolean }, raw: string): string[] =>
  process.stdout.isTTY && !ctx.json
    ? [SHOWN_ONCE, `Use it: export IMGTASK_API_KEY=${raw}   (the client commands read it; or pass --key)`]
    : [SHOWN_ONCE];

const maxConcurrentOption = (text: string | undefined) => intOption(text, '--max-concurrent', 1, MAX_CONCURRENT_BOUND);
const maxPriorityOption = (text: string | undefined) => intOption(text, '--max-priority', PRIORITY.min, PRIORITY.max);

/** What keys create reads from its flags, as typed. */
interface CreateOptions {
  account: string;
  name?: string;
  scopes?: string;
  spendingLimit?: string;
  period?: string;
  requestsPerMinute?: string;
  expiresAt?: string;
  maxConcurrent?: string;
  maxPriority?: string;
}

/** What keys update reads from its flags: the same, bar account and scopes (a key with other scopes is a new key). */
type UpdateOptions = Omit<CreateOptions, 'account' | 'scopes'>;

type KeyLimits = { requestsPerMinute?: number; expiresAt?: string; maxConcurrent: number | null; maxPriority: number };

/** The limits a key holds beyond the defaults, as a tail to a line about it. */
const describeLimits = (key: KeyLimits): string =>
  [
    key.requestsPerMinute === undefined ? '' : `, ${key.requestsPerMinute} requests per minute`,
    key.maxConcurrent === null ? '' : `, at most ${key.maxConcurrent} running at once`,
    key.maxPriority === PRIORITY.default ? '' : `, priority up to ${key.maxPriority}`,
    key.expiresAt === undefined ? '' : `, expires ${key.expiresAt}`,
  ].join('');

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');

  keys
    .command('create')
    .description('Create an API key; the raw key is printed once')
    .requiredOption('--account <account>', 'account name or id')
    .option('--name <name>', 'a label for the key')
    .option(
      '--scopes <list>',
      'comma-separated scopes (default: every scope an API key may hold but workflow:raw, given only by name)',
    )
    .option('--spending-limit <usd>', 'spending limit per period, in USD')
    .option('--period <period>', 'day, week or month (default month)')
    .option('--requests-per-minute <n>', 'requests the key may make per minute (default: no limit)')
    .option('--expires-at <time>', 'when the key stops working: an ISO date-time, or a duration from now such as 30d')
    .option(
      '--max-concurrent <n>',
      "at most this many items of the key's tasks run at once, fleet-wide (default: no bound)",
    )
    .option(
      '--max-priority <n>',
      `the highest priority a task created with the key may ask for, ${PRIORITY.min} to ${PRIORITY.max} (default ${PRIORITY.default})`,
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: CreateOptions) => {
        if (opts.period && !opts.spendingLimit) throw new UsageError('--period goes with --spending-limit');
        // The body of POST /api-key: the server checks scopes, amount and period.
        const args = {
          account: opts.account,
          name: opts.name,
          // A token-only scope goes on to the server, which says why a key cannot hold it.
          scopes:
            opts.scopes === undefined
              ? undefined
              : listOption(opts.scopes).map((s) =>
                  isTokenOnlyScope(s) ? s : enumOption(s, '--scopes', API_KEY_SCOPES),
                ),
          spendingLimit: usdOption(opts.spendingLimit, '--spending-limit'),
          spendingLimitPeriod: enumOption(opts.period, '--period', PERIODS),
          requestsPerMinute: intOption(opts.requestsPerMinute, '--requests-per-minute', 1, MAX_RPM),
          expiresAt: expiryOption(opts.expiresAt),
          maxConcurrent: maxConcurrentOption(opts.maxConcurrent),
          maxPriority: maxPriorityOption(opts.maxPriority),
        } as AdminArgs<'keys.create'>;
        const created = await admin(ctx, 'keys.create', args);
        printSecret(ctx, created, {
          before: [
            `created ${created.apiKey.id} (${created.apiKey.scopes.join(' ')})${describeLimits(created.apiKey)}`,
          ],
          secret: created.raw,
          after: keyNotes(ctx, created.raw),
        });
      }),
    );

  accountListCommand(keys, "List an account's live API keys", (ctx, account) => admin(ctx, 'keys.list', { account }), {
    empty: 'no live API keys',
    header: [
      'ID',
      'PREVIEW',
      'NAME',
      'SCOPES',
      'LIMIT',
      'PERIOD',
      'MAX CONCURRENT',
      'MAX PRIORITY',
      'RPM',
      'EXPIRES',
      'LAST USED',
    ],
    row: (k) => [
      k.id,
      k.keyPreview,
      k.name ?? '',
      k.scopes.join(','),
      k.spendingLimit ?? '-',
      k.spendingLimitPeriod,
      k.maxConcurrent === null ? '-' : String(k.maxConcurrent),
      String(k.maxPriority),
      k.requestsPerMinute === undefined ? '-' : String(k.requestsPerMinute),
      k.expiresAt ?? '-',
      k.lastUsedAt ?? 'never',
    ],
  });

  keys
    .command('update <id>')
    .description(
      "Change a key's name, request limit, expiry, spending limit or scheduling limits; none removes a setting",
    )
    .option('--name <name>', 'a label for the key, or none')
    .option('--requests-per-minute <n>', 'requests the key may make per minute, or none')
    .option('--expires-at <time>', 'an ISO date-time, a duration from now such as 30d, or none')
    .option('--spending-limit <usd>', 'spending limit per period, in USD, or none')
    .option('--period <period>', 'day, week or month')
    .option('--max-concurrent <n>', "at most this many items of the key's tasks run at once, fleet-wide, or none")
    .option(
      '--max-priority <n>',
      `the highest priority a task created with the key may ask for, ${PRIORITY.min} to ${PRIORITY.max}, or none (back to ${PRIORITY.default})`,
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: UpdateOptions) => {
        const orNone = <T>(text: string | undefined, parse: (text: string) => T): T | null | undefined =>
          text === undefined ? undefined : text === 'none' ? null : parse(text);
        const args = {
          id,
          name: orNone(opts.name, (name) => name),
          requestsPerMinute: orNone(opts.requestsPerMinute, (text) =>
            intOption(text, '--requests-per-minute', 1, MAX_RPM),
          ),
          expiresAt: orNone(opts.expiresAt, expiryOption),
          spendingLimit: orNone(opts.spendingLimit, (text) => usdOption(text, '--spending-limit')),
          spendingLimitPeriod: enumOption(opts.period, '--period', PERIODS),
          maxConcurrent: orNone(opts.maxConcurrent, maxConcurrentOption),
          maxPriority: orNone(opts.maxPriority, maxPriorityOption),
        } as AdminArgs<'keys.update'>;
        const updated = await admin(ctx, 'keys.update', args);
        print(ctx, updated, () => `updated ${updated.id}${describeLimits(updated)}`);
      }),
    );

  keys
    .command('rotate <id>')
    .description('Replace a key by a new raw key with the same settings; the old key works for a grace period')
    .option(
      '--grace <duration>',
      'how long the old key keeps working: a duration such as 1h, or 0 to revoke it now (default 24h)',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: { grace?: string }) => {
        const graceSeconds =
          opts.grace === undefined
            ? undefined
            : opts.grace.trim() === '0'
              ? 0
              : Math.ceil(parseDuration(durationOption(opts.grace, '--grace')!)! / 1000);
        const rotated = await admin(ctx, 'keys.rotate', { id, graceSeconds });
        const old = rotated.previous.expiresAt ? `${id} works until ${rotated.previous.expiresAt}` : `${id} is revoked`;
        printSecret(ctx, rotated, {
          before: [`created ${rotated.apiKey.id}; ${old}`],
          secret: rotated.raw,
          after: keyNotes(ctx, rotated.raw),
        });
      }),
    );

  keys
    .command('revoke <id>')
    .description('Revoke (delete) an API key; it stops working at once')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) => adminPrint(ctx, 'keys.revoke', { id }, (revoked) => `revoked ${revoked.id}`)),
    );
}
