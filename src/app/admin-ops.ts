import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { parseUsd } from '../domain/money.js';
import { ALL_SCOPES } from '../domain/scopes.js';
import { parseDuration } from '../domain/time.js';
import { toAccountView } from '../services/accounts.js';
import { checkLedger } from '../services/doctor.js';
import { formatUsd } from '../domain/money.js';
import { periodKey } from '../domain/periods.js';
import { EVENT_KINDS } from '../tasks/index.js';
import { DESTINATION_PROVIDERS, type DestinationProviderId } from '../services/destinations.js';
import type { Services } from './services.js';

const Usd = z.string().refine((value) => parseUsd(value) !== null, 'expected a USD amount such as 10 or 0.5');
const ScopeList = (allowed: readonly string[]) =>
  z
    .string()
    .transform((text) => text.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((scopes) => scopes.every((s) => allowed.includes(s)), `scopes are a comma-separated list of: ${allowed.join(', ')}`);

/**
 * Operator actions, shared by the CLI (on a stopped server's data dir) and the admin socket
 * (on a running one), so both paths run the very same code.
 */
const OPS = {
  'accounts.create': {
    args: z.object({ name: z.string(), credit: Usd.optional() }),
    run: async (s: Services, a: { name: string; credit?: string }) => view(s, await s.accounts.create(a.name, a.credit ? parseUsd(a.credit)! : 0)),
  },
  'accounts.credit': {
    args: z.object({ account: z.string(), amount: Usd, note: z.string().optional() }),
    run: async (s: Services, a: { account: string; amount: string; note?: string }) => view(s, await s.accounts.credit(a.account, parseUsd(a.amount)!, a.note)),
  },
  'accounts.list': {
    args: z.object({}),
    run: async (s: Services) => Promise.all((await s.accounts.list()).map((account) => view(s, account))),
  },
  'accounts.show': {
    args: z.object({ account: z.string() }),
    run: async (s: Services, a: { account: string }) => {
      const account = await s.accounts.find(a.account);
      const now = s.clock.now();
      const keys = await Promise.all(
        (await s.apiKeys.list(account.id)).map(async (key) => ({
          ...key,
          // Charged + reserved in the key's current UTC period (the figure its limit is checked against).
          periodSpend: formatUsd(await s.store.tasks.keySpend(key.id, key.spendingLimitPeriod, now)),
          period: periodKey(key.spendingLimitPeriod, now).slice(2),
        })),
      );
      return { ...(await view(s, account)), keys };
    },
  },
  'keys.create': {
    args: z.object({
      account: z.string(),
      name: z.string().min(1).max(64).optional(),
      scopes: ScopeList(ALL_SCOPES).optional(),
      spendingLimit: Usd.optional(),
      period: z.enum(['day', 'week', 'month']).optional(),
    }),
    run: async (s: Services, a: { account: string; name?: string; scopes?: string[]; spendingLimit?: string; period?: 'day' | 'week' | 'month' }) => {
      const account = await s.accounts.find(a.account);
      return s.apiKeys.create({
        accountId: account.id,
        name: a.name,
        scopes: a.scopes,
        spendingLimit: a.spendingLimit ? parseUsd(a.spendingLimit)! : undefined,
        spendingLimitPeriod: a.period,
      });
    },
  },
  'keys.list': {
    args: z.object({ account: z.string() }),
    run: async (s: Services, a: { account: string }) => s.apiKeys.list((await s.accounts.find(a.account)).id),
  },
  'keys.revoke': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const key = await s.store.apiKeys.get(a.id);
      if (!key) throw new AppError('API_KEY_NOT_FOUND', `no API key ${a.id}`);
      return { ...(await s.apiKeys.revoke(key.accountId, key.id)), revoked: true };
    },
  },
  'tokens.issue': {
    args: z.object({ account: z.string(), scopes: ScopeList(ALL_SCOPES).optional(), ttl: z.string().optional() }),
    run: async (s: Services, a: { account: string; scopes?: string[]; ttl?: string }) => {
      const account = await s.accounts.find(a.account);
      const ttl = parseDuration(a.ttl ?? s.config.current().auth.accessTokenTtl);
      if (ttl === null) throw new AppError('VALIDATION_ERROR', 'ttl is a duration such as 90s, 15m, 1h or 30d');
      return s.tokens.issueAccessToken(account.id, a.scopes ?? [...ALL_SCOPES], ttl);
    },
  },
  'secrets.set': {
    args: z.object({ name: z.string(), value: z.string() }),
    run: async (s: Services, a: { name: string; value: string }) => {
      const saved = await s.secrets.set(a.name, a.value);
      await s.refreshProviders();
      return saved;
    },
  },
  'secrets.list': {
    args: z.object({}),
    run: async (s: Services) => s.secrets.list(),
  },
  'secrets.delete': {
    args: z.object({ name: z.string() }),
    run: async (s: Services, a: { name: string }) => {
      if (!(await s.secrets.delete(a.name))) throw new AppError('VALIDATION_ERROR', `no secret "${a.name}"`);
      await s.refreshProviders();
      return { name: a.name, deleted: true };
    },
  },
  'webhooks.create': {
    args: z.object({ account: z.string(), url: z.string(), events: z.string().optional(), apiKeyIds: z.string().optional() }),
    run: async (s: Services, a: { account: string; url: string; events?: string; apiKeyIds?: string }) => {
      const account = await s.accounts.find(a.account);
      return s.webhooks.create(account.id, { url: a.url, events: listArg(a.events, EVENT_KINDS), apiKeyIds: listArg(a.apiKeyIds) ?? undefined });
    },
  },
  'webhooks.list': {
    args: z.object({ account: z.string() }),
    run: async (s: Services, a: { account: string }) => Promise.all((await s.store.webhooks.listByAccount((await s.accounts.find(a.account)).id)).map((w) => operatorView(s, w))),
  },
  'webhooks.show': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => operatorView(s, await webhookById(s, a.id)),
  },
  'webhooks.update': {
    args: z.object({ id: z.string(), url: z.string().optional(), events: z.string().optional(), apiKeyIds: z.string().optional(), enabled: z.boolean().optional() }),
    run: async (s: Services, a: { id: string; url?: string; events?: string; apiKeyIds?: string; enabled?: boolean }) => {
      const webhook = await webhookById(s, a.id);
      const changes: { url?: string; events?: string[] | null; apiKeyIds?: string[]; enabled?: boolean } = { url: a.url, enabled: a.enabled };
      if (a.events !== undefined) changes.events = listArg(a.events, EVENT_KINDS);
      if (a.apiKeyIds !== undefined) changes.apiKeyIds = listArg(a.apiKeyIds) ?? [];
      return s.webhooks.update(webhook.accountId, webhook.id, changes);
    },
  },
  'webhooks.delete': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const webhook = await webhookById(s, a.id);
      await s.webhooks.delete(webhook.accountId, webhook.id);
      return { id: webhook.id, deleted: true };
    },
  },
  'webhooks.rotate-secret': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const webhook = await webhookById(s, a.id);
      return s.webhooks.rotateSecret(webhook.accountId, webhook.id);
    },
  },
  'webhooks.test': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const webhook = await webhookById(s, a.id);
      return s.outbox.sendTest(webhook.accountId, webhook.id);
    },
  },
  'webhooks.deliveries': {
    args: z.object({ id: z.string(), limit: z.number().int().min(1).max(1000).optional() }),
    run: async (s: Services, a: { id: string; limit?: number }) => s.outbox.deliveries(null, (await webhookById(s, a.id)).id, a.limit ?? 50),
  },
  'webhooks.redeliver': {
    args: z.object({ deliveryId: z.string() }),
    run: async (s: Services, a: { deliveryId: string }) => s.outbox.redeliver(null, a.deliveryId),
  },
  'destinations.create': {
    args: z.object({ account: z.string(), name: z.string(), provider: z.string(), config: z.string() }),
    run: async (s: Services, a: { account: string; name: string; provider: string; config: string }) => {
      const account = await s.accounts.find(a.account);
      if (!(DESTINATION_PROVIDERS as readonly string[]).includes(a.provider)) throw new AppError('VALIDATION_ERROR', `provider is one of ${DESTINATION_PROVIDERS.join(', ')}`);
      return s.destinations.create(account.id, { name: a.name, provider: { id: a.provider as DestinationProviderId }, config: jsonArg(a.config, 'config') });
    },
  },
  'destinations.list': {
    args: z.object({ account: z.string() }),
    run: async (s: Services, a: { account: string }) => s.destinations.list((await s.accounts.find(a.account)).id),
  },
  'destinations.show': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => s.destinations.view(await destinationById(s, a.id)),
  },
  'destinations.update': {
    args: z.object({ id: z.string(), name: z.string().optional(), config: z.string().optional() }),
    run: async (s: Services, a: { id: string; name?: string; config?: string }) => {
      const d = await destinationById(s, a.id);
      return s.destinations.update(d.accountId, d.id, { name: a.name, config: a.config === undefined ? undefined : jsonArg(a.config, 'config') });
    },
  },
  'destinations.delete': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const d = await destinationById(s, a.id);
      await s.destinations.delete(d.accountId, d.id);
      return { id: d.id, deleted: true };
    },
  },
  'destinations.test': {
    args: z.object({ id: z.string() }),
    run: async (s: Services, a: { id: string }) => {
      const d = await destinationById(s, a.id);
      return s.destinations.test(d.accountId, d.id);
    },
  },
  dashboard: {
    args: z.object({}),
    run: async (s: Services) => {
      const now = s.clock.now();
      const recent = await s.store.tasks.recent(200);
      const names = new Map((await s.accounts.list()).map((a) => [a.id, a.name]));
      const failures = new Map<string, number>();
      for (const task of recent) {
        const codes = task.status === 'failed' ? (task.errors ?? []).map((e) => e.code) : task.items.flatMap((i) => (i.status === 'failed' && i.error ? [i.error.code] : []));
        for (const code of codes) failures.set(code, (failures.get(code) ?? 0) + 1);
      }
      const deliveries = await s.store.webhooks.deliveryCounts();
      return {
        url: s.publicBase(),
        generatedAt: new Date(now).toISOString(),
        counts: await s.store.tasks.countsByStatus(),
        throughputPerMinute: recent.filter((t) => t.status !== 'pending' && now - Date.parse(t.updatedAt) <= 60_000).length,
        failures: [...failures].sort((a, b) => b[1] - a[1]).map(([code, count]) => ({ code, count })),
        accounts: await Promise.all(
          (await s.accounts.list()).map(async (a) => {
            const view = toAccountView(a, await s.store.tasks.reserved(a.id));
            return { name: view.name, balance: view.balance, reserved: view.reserved, available: view.available };
          }),
        ),
        webhooks: {
          ...deliveries,
          disabled: (await s.store.webhooks.listAll()).filter((w) => !w.enabled && w.disabledReason).map((w) => ({ id: w.id, url: w.url, reason: w.disabledReason! })),
        },
        tasks: recent.slice(0, 50).map((t) => ({
          id: t.id,
          type: t.type,
          status: t.status,
          account: names.get(t.accountId) ?? t.accountId,
          cost: formatUsd(t.cost),
          createdAt: t.createdAt,
          updatedAt: t.updatedAt,
          errorCode: t.errors?.[0]?.code ?? t.items.find((i) => i.status === 'failed')?.error?.code,
        })),
      };
    },
  },
  doctor: {
    args: z.object({}),
    run: async (s: Services) => checkLedger(s.store),
  },
  sweep: {
    args: z.object({}),
    run: async (s: Services) => {
      const expired = await s.tasks.sweep();
      return { expired: expired.length, taskIds: expired };
    },
  },
} as const;

/** A comma-separated list; "all" or empty means null (every kind) for events. */
function listArg(text: string | undefined, allowed?: readonly string[]): string[] | null | undefined {
  if (text === undefined) return undefined;
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  if (allowed && (items.length === 0 || (items.length === 1 && items[0] === 'all'))) return null;
  const unknown = allowed ? items.filter((item) => !allowed.includes(item)) : [];
  if (unknown.length) throw new AppError('VALIDATION_ERROR', `unknown event kind ${unknown.join(', ')}; known: ${allowed!.join(', ')}`);
  return items;
}

function jsonArg(text: string, label: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new AppError('VALIDATION_ERROR', `${label} must be a JSON object`);
}

async function destinationById(s: Services, id: string) {
  const destination = await s.store.destinations.get(id);
  if (!destination) throw new AppError('VALIDATION_ERROR', `no destination ${id}`);
  return destination;
}

async function webhookById(s: Services, id: string) {
  const webhook = await s.store.webhooks.get(id);
  if (!webhook) throw new AppError('VALIDATION_ERROR', `no webhook ${id}`);
  return webhook;
}

/** What an operator sees of a webhook: the resource plus its key binding and health. */
async function operatorView(s: Services, webhook: Awaited<ReturnType<typeof webhookById>>) {
  return { ...s.webhooks.view(webhook), apiKeyIds: webhook.apiKeyIds, failingSince: webhook.failingSince ?? null, disabledReason: webhook.disabledReason ?? null };
}

/** An account with its reserve, as every command shows it. */
async function view(s: Services, account: Parameters<typeof toAccountView>[0]) {
  return toAccountView(account, await s.store.tasks.reserved(account.id));
}

export type AdminOpName = keyof typeof OPS;
export const ADMIN_OPS = Object.keys(OPS) as AdminOpName[];
/** Shapes the operator actions answer with, for the CLI. */
export type { AccountView } from '../services/accounts.js';
export type { ApiKeyView } from '../services/api-keys.js';

export const isAdminOp = (name: string): name is AdminOpName => Object.hasOwn(OPS, name);

/** Validates the arguments and runs one operator action. Bad arguments are VALIDATION_ERROR. */
export async function runAdminOp(services: Services, name: AdminOpName, rawArgs: unknown): Promise<unknown> {
  const op = OPS[name];
  const parsed = op.args.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('VALIDATION_ERROR', `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
  }
  return (op.run as (s: Services, a: unknown) => Promise<unknown>)(services, parsed.data);
}
