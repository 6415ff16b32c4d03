import { AppError } from '../domain/errors.js';
import { randomId } from '../domain/ids.js';
import { isoTime } from '../domain/time.js';
import type { WebhookChanges as StoredWebhookChanges, WebhookRecord } from '../store/records.js';
import type { Store } from '../store/types.js';
import { type Clock, type Owner, ownedBy } from './ports.js';
import { open, seal } from './secrets.js';

export interface WebhookView {
  id: string;
  userId: string;
  url: string;
  enabled: boolean;
  events: string[] | null;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookChanges {
  url?: string;
  events?: string[] | null;
  apiKeyIds?: string[];
  enabled?: boolean;
}

/** Why deliveries to a URL can never be made under the config in force (webhooks/target-check.ts), or null; none: only the scheme is checked. */
export type WebhookUrlCheck = (url: string) => string | null;

/**
 * The refusal of a webhook URL (a dashboard webhook's, or a task's `webhook.custom` entry at
 * `field`) the service may never send to: 400, naming the reason and where a local receiver fits.
 */
export function unreachableWebhookUrl(url: string, reason: string, field?: string): AppError {
  const where = field ? `${field}: ` : '';
  return new AppError(
    'VALIDATION_ERROR',
    `${where}${url} would never be delivered to: ${reason}. For a receiver on your own machine, use \`imgtask webhooks listen --forward-to URL\``,
  );
}

const isHttpUrl = (url: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
};

/**
 * Dashboard webhooks: CRUD for an account, the signing secret sealed at rest with the
 * secrets key, and the resource exactly as the API documents it (docs/api/webhooks.md;
 * apiKeyIds and health are kept but not shown).
 */
export function createWebhookService(deps: {
  store: Store;
  clock: Clock;
  secretsKey: Uint8Array;
  newSecret: () => string;
  checkUrl?: WebhookUrlCheck;
}) {
  const { store, clock } = deps;
  const now = () => isoTime(clock.now());

  const view = (webhook: WebhookRecord): WebhookView => ({
    id: webhook.id,
    userId: webhook.accountId,
    url: webhook.url,
    enabled: webhook.enabled,
    events: webhook.events,
    secret: open(deps.secretsKey, webhook.id, webhook.sealedSecret),
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  });

  async function owned(owner: Owner, id: string): Promise<WebhookRecord> {
    const webhook = await store.webhooks.get(id);
    if (!webhook || !ownedBy(owner, webhook.accountId)) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${id}`);
    return webhook;
  }

  /** Changes the webhook as stored (a delivery's health write in between is kept); gone meanwhile → not found. */
  async function updated(id: string, changes: StoredWebhookChanges): Promise<WebhookRecord> {
    const webhook = await store.webhooks.update(id, changes);
    if (!webhook) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${id}`);
    return webhook;
  }

  async function checkKeys(accountId: string, apiKeyIds: string[]): Promise<void> {
    for (const id of apiKeyIds) {
      const key = await store.apiKeys.get(id);
      if (!key || key.revokedAt || key.accountId !== accountId)
        throw new AppError('WEBHOOK_API_KEY_NOT_FOUND', `the account has no API key ${id}`);
    }
  }

  const checkUrl = (url: string) => {
    if (!isHttpUrl(url)) throw new AppError('VALIDATION_ERROR', 'a webhook URL must be http or https');
    // Refused when given, not at every delivery: nothing is created that could only ever fail.
    const refusal = deps.checkUrl?.(url);
    if (refusal) throw unreachableWebhookUrl(url, refusal);
  };

  return {
    view,
    owned,
    async create(
      accountId: string,
      input: { url: string; events?: string[] | null; apiKeyIds?: string[] },
    ): Promise<WebhookView> {
      checkUrl(input.url);
      const apiKeyIds = [...new Set(input.apiKeyIds ?? [])];
      await checkKeys(accountId, apiKeyIds);
      const id = randomId('wh');
      const at = now();
      const webhook = await store.webhooks.put({
        id,
        accountId,
        url: input.url,
        enabled: true,
        events: input.events === undefined ? null : input.events,
        apiKeyIds,
        sealedSecret: seal(deps.secretsKey, id, deps.newSecret()),
        createdAt: at,
        updatedAt: at,
      });
      return view(webhook);
    },
    async list(accountId: string): Promise<WebhookView[]> {
      return (await store.webhooks.listByAccount(accountId)).map(view);
    },
    async get(owner: Owner, id: string): Promise<WebhookView> {
      return view(await owned(owner, id));
    },
    async update(owner: Owner, id: string, changes: WebhookChanges): Promise<WebhookView> {
      const webhook = await owned(owner, id);
      if (changes.url !== undefined) checkUrl(changes.url);
      if (changes.apiKeyIds !== undefined) await checkKeys(webhook.accountId, changes.apiKeyIds);
      const apiKeyIds = changes.apiKeyIds === undefined ? undefined : [...new Set(changes.apiKeyIds)];
      return view(
        await updated(id, {
          url: changes.url,
          events: changes.events,
          apiKeyIds,
          enabled: changes.enabled,
          updatedAt: now(),
        }),
      );
    },
    async rotateSecret(owner: Owner, id: string): Promise<WebhookView> {
      await owned(owner, id);
      return view(await updated(id, { sealedSecret: seal(deps.secretsKey, id, deps.newSecret()), updatedAt: now() }));
    },
    async delete(owner: Owner, id: string): Promise<void> {
      await owned(owner, id);
      await store.webhooks.delete(id);
    },
    /** What an operator sees of a webhook: the resource plus its key binding and health. */
    async operatorView(
      owner: Owner,
      id: string,
    ): Promise<WebhookView & { apiKeyIds: string[]; failingSince: string | null; disabledReason: string | null }> {
      const webhook = await owned(owner, id);
      return {
        ...view(webhook),
        apiKeyIds: webhook.apiKeyIds,
        failingSince: webhook.failingSince ?? null,
        disabledReason: webhook.disabledReason ?? null,
      };
    },
    /** The raw secret of a webhook, for signing. */
    secretOf: (webhook: WebhookRecord) => open(deps.secretsKey, webhook.id, webhook.sealedSecret),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
