import type { Command } from 'commander';
import { action, admin } from '../context.js';
import { print, table } from '../output.js';

interface WebhookOut {
  id: string;
  url: string;
  enabled: boolean;
  events: string[] | null;
  secret: string;
  apiKeyIds?: string[];
  failingSince?: string | null;
  disabledReason?: string | null;
}

interface DeliveryOut {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: { at: string; status: number | null; latencyMs: number; error?: string }[];
  nextAttemptAt: string | null;
}

const line = (w: WebhookOut) => `${w.id}  ${w.enabled ? 'enabled ' : 'DISABLED'}  ${w.url}  events: ${w.events?.join(',') ?? 'all'}`;

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('Dashboard webhooks: manage, test, inspect deliveries');

  webhooks
    .command('create')
    .description('Create a webhook for an account; prints its signing secret')
    .requiredOption('--account <account>', 'account name or id')
    .requiredOption('--endpoint <url>', 'the http(s) endpoint (the global --url names the server)')
    .option('--events <list>', 'comma-separated event kinds (default: all)')
    .option('--api-keys <list>', 'comma-separated API key ids whose tasks it receives (default: every key)')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string; endpoint: string; events?: string; apiKeys?: string }, cmd: Command) => {
        const created = (await admin(cmd, 'webhooks.create', { account: opts.account, url: opts.endpoint, events: opts.events, apiKeyIds: opts.apiKeys })) as WebhookOut;
        print(g, created, () => `${line(created)}\nsecret ${created.secret}`);
      }),
    );

  webhooks
    .command('list')
    .description("List an account's webhooks with their health")
    .requiredOption('--account <account>', 'account name or id')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, opts: { account: string }, cmd: Command) => {
        const list = (await admin(cmd, 'webhooks.list', { account: opts.account })) as WebhookOut[];
        print(g, list, () =>
          list.length ? table([['ID', 'STATE', 'URL', 'EVENTS', 'FAILING SINCE'], ...list.map((w) => [w.id, w.enabled ? 'enabled' : 'disabled', w.url, w.events?.join(',') ?? 'all', w.failingSince ?? '-'])]) : 'no webhooks',
        );
      }),
    );

  for (const [name, op, description] of [
    ['show', 'webhooks.show', 'Show a webhook: secret, key binding, health'],
    ['delete', 'webhooks.delete', 'Delete a webhook'],
    ['rotate-secret', 'webhooks.rotate-secret', 'Replace the signing secret; prints the new one'],
    ['test', 'webhooks.test', 'Send a webhook.test event to it'],
  ] as const) {
    webhooks
      .command(`${name} <id>`)
      .description(description)
      .option('--json', 'print one JSON document')
      .action(
        action(async (g, id: string, _opts: unknown, cmd: Command) => {
          const result = (await admin(cmd, op, { id })) as WebhookOut & DeliveryOut & { deleted?: boolean };
          print(g, result, () => {
            if (name === 'delete') return `deleted ${id}`;
            if (name === 'test') return `sent webhook.test (delivery ${result.id}, event ${result.eventId})`;
            const health = result.disabledReason ? `\ndisabled: ${result.disabledReason}` : result.failingSince ? `\nfailing since ${result.failingSince}` : '';
            return `${line(result)}\nsecret ${result.secret}${result.apiKeyIds?.length ? `\nkeys ${result.apiKeyIds.join(', ')}` : ''}${health}`;
          });
        }),
      );
  }

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
      action(async (g, id: string, opts: { endpoint?: string; events?: string; apiKeys?: string; enable?: boolean; disable?: boolean }, cmd: Command) => {
        const enabled = opts.enable ? true : opts.disable ? false : undefined;
        const updated = (await admin(cmd, 'webhooks.update', { id, url: opts.endpoint, events: opts.events, apiKeyIds: opts.apiKeys, enabled })) as WebhookOut;
        print(g, updated, () => line(updated));
      }),
    );

  webhooks
    .command('deliveries <id>')
    .description("A webhook's deliveries, newest first, with each attempt's status code and latency")
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, id: string, opts: { limit: string }, cmd: Command) => {
        const list = (await admin(cmd, 'webhooks.deliveries', { id, limit: Number(opts.limit) })) as DeliveryOut[];
        print(g, list, () =>
          list.length
            ? table([
                ['DELIVERY', 'EVENT', 'STATUS', 'ATTEMPTS (code/ms)', 'NEXT'],
                ...list.map((d) => [d.id, d.eventType, d.status, d.attempts.map((a) => `${a.status ?? 'none'}/${a.latencyMs}`).join(' ') || '-', d.nextAttemptAt ?? '-']),
              ])
            : 'no deliveries',
        );
      }),
    );

  webhooks
    .command('redeliver <delivery-id>')
    .description('Send a delivery again, with the same event id')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, deliveryId: string, _opts: unknown, cmd: Command) => {
        const result = (await admin(cmd, 'webhooks.redeliver', { deliveryId })) as DeliveryOut;
        print(g, result, () => `queued ${result.id} again (event ${result.eventId})`);
      }),
    );
}
