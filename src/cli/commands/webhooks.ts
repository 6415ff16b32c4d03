import type { Command } from 'commander';
import type { AdminArgs, AdminResult } from '../../app/admin/ops.js';
import { accountListCommand } from '../account-list-command.js';
import { admin, adminPrint } from '../context.js';
import { intOption, listOption, print, printSecret, table } from '../output.js';
import { command } from '../run.js';
import { registerWebhookListen } from './webhooks-listen.js';

/** --events: a list of kinds, or "all" (null: every kind), checked by the server. */
const eventsOption = (text: string): AdminArgs<'webhooks.create'>['events'] => {
  const kinds = listOption(text);
  return kinds.length === 0 || (kinds.length === 1 && kinds[0] === 'all')
    ? null
    : (kinds as AdminArgs<'webhooks.create'>['events']);
};

type Delivery = AdminResult<'webhooks.deliveries'>[number];

/**
 * The deliveries as a table, each row followed by why its attempts failed, when they said:
 * consecutive attempts failing alike share one line (`attempts 1-8: …`).
 */
function deliveriesText(list: Delivery[]): string {
  const rows = table([
    ['DELIVERY', 'EVENT', 'STATUS', 'ATTEMPTS (code/ms)', 'NEXT'],
    ...list.map((d) => [
      d.id,
      d.eventType,
      d.status,
      d.attempts.map((a) => `${a.status ?? 'none'}/${a.latencyMs}`).join(' ') || '-',
      d.nextAttemptAt ?? '-',
    ]),
  ]).split('\n');
  const out = [rows[0]];
  for (const [index, d] of list.entries()) {
    out.push(rows[index + 1]);
    for (let first = 0; first < d.attempts.length; ) {
      const { error } = d.attempts[first];
      let last = first;
      while (last + 1 < d.attempts.length && d.attempts[last + 1].error === error) last++;
      if (error)
        out.push(`  ${first === last ? `attempt ${first + 1}` : `attempts ${first + 1}-${last + 1}`}: ${error}`);
      first = last + 1;
    }
  }
  return out.join('\n');
}

const line = (w: Pick<AdminResult<'webhooks.show'>, 'id' | 'enabled' | 'url' | 'events'>) =>
  `${w.id}  ${w.enabled ? 'enabled ' : 'DISABLED'}  ${w.url}  events: ${w.events?.join(',') ?? 'all'}`;

export function registerWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'Dashboard webhooks: manage, test, inspect deliveries; listen forwards live events to a local receiver',
    );

  webhooks
    .command('create')
    .description('Create a webhook for an account; prints its signing secret')
    .requiredOption('--account <account>', 'account name or id')
    .requiredOption('--endpoint <url>', 'the http(s) endpoint (the global --url names the server)')
    .option('--events <list>', 'comma-separated event kinds (default: all)')
    .option('--api-keys <list>', 'comma-separated API key ids whose tasks it receives (default: every key)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, opts: { account: string; endpoint: string; events?: string; apiKeys?: string }) => {
        const created = await admin(ctx, 'webhooks.create', {
          account: opts.account,
          url: opts.endpoint,
          events: opts.events === undefined ? undefined : eventsOption(opts.events),
          apiKeyIds: opts.apiKeys === undefined ? undefined : listOption(opts.apiKeys),
        });
        printSecret(ctx, created, { before: [line(created)], label: 'secret', secret: created.secret });
      }),
    );

  accountListCommand(
    webhooks,
    "List an account's webhooks with their health",
    (ctx, account) => admin(ctx, 'webhooks.list', { account }),
    {
      empty: 'no webhooks',
      header: ['ID', 'STATE', 'URL', 'EVENTS', 'FAILING SINCE'],
      row: (w) => [
        w.id,
        w.enabled ? 'enabled' : 'disabled',
        w.url,
        w.events?.join(',') ?? 'all',
        w.failingSince ?? '-',
      ],
    },
  );

  webhooks
    .command('show <id>')
    .description('Show a webhook: secret, key binding, health')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) =>
        adminPrint(ctx, 'webhooks.show', { id }, (shown) => {
          const health = shown.disabledReason
            ? `\ndisabled: ${shown.disabledReason}`
            : shown.failingSince
              ? `\nfailing since ${shown.failingSince}`
              : '';
          return `${line(shown)}\nsecret ${shown.secret}${shown.apiKeyIds.length ? `\nkeys ${shown.apiKeyIds.join(', ')}` : ''}${health}`;
        }),
      ),
    );

  webhooks
    .command('delete <id>')
    .description('Delete a webhook')
    .option('--json', 'print one JSON document')
    .action(command(async (ctx, id: string) => adminPrint(ctx, 'webhooks.delete', { id }, () => `deleted ${id}`)));

  webhooks
    .command('rotate-secret <id>')
    .description('Replace the signing secret; prints the new one')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) => {
        const rotated = await admin(ctx, 'webhooks.rotate-secret', { id });
        printSecret(ctx, rotated, { before: [line(rotated)], label: 'secret', secret: rotated.secret });
      }),
    );

  webhooks
    .command('test <id>')
    .description('Send a webhook.test event to it')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string) =>
        adminPrint(
          ctx,
          'webhooks.test',
          { id },
          (delivery) => `sent webhook.test (delivery ${delivery.id}, event ${delivery.eventId})`,
        ),
      ),
    );

  webhooks
    .command('update <id>')
    .description('Change a webhook: --endpoint, --events, --api-keys, --enable / --disable')
    .option('--endpoint <url>', 'the http(s) endpoint')
    .option('--events <list>', 'comma-separated event kinds; "all" for every kind')
    .option('--api-keys <list>', 'comma-separated API key ids; empty for every key')
    .option('--enable', 'turn it on (also clears a disable for failing)')
    .option('--disable', 'turn it off')
    .option('--json', 'print one JSON document')
    .action(
      command(
        async (
          ctx,
          id: string,
          opts: { endpoint?: string; events?: string; apiKeys?: string; enable?: boolean; disable?: boolean },
        ) => {
          const updated = await admin(ctx, 'webhooks.update', {
            id,
            url: opts.endpoint,
            events: opts.events === undefined ? undefined : eventsOption(opts.events),
            apiKeyIds: opts.apiKeys === undefined ? undefined : listOption(opts.apiKeys),
            enabled: opts.enable ? true : opts.disable ? false : undefined,
          });
          print(ctx, updated, () => line(updated));
        },
      ),
    );

  webhooks
    .command('deliveries <id>')
    .description(
      "A webhook's deliveries, newest first, with each attempt's status code and latency, and why failed attempts failed",
    )
    .option('--limit <n>', 'how many, 1 to 1000', '20')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, id: string, opts: { limit: string }) =>
        adminPrint(ctx, 'webhooks.deliveries', { id, limit: intOption(opts.limit, '--limit', 1, 1000) }, (list) =>
          list.length ? deliveriesText(list) : 'no deliveries',
        ),
      ),
    );

  webhooks
    .command('redeliver <delivery-id>')
    .description('Send a delivery again, with the same event id')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, deliveryId: string) =>
        adminPrint(
          ctx,
          'webhooks.redeliver',
          { deliveryId },
          (result) => `queued ${result.id} again (event ${result.eventId})`,
        ),
      ),
    );

  registerWebhookListen(webhooks);
}
