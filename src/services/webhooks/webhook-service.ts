import { AppError } from '../../domain/errors.js';
import { randomId } from '../../domain/ids.js';
import { isoTime } from '../../domain/time.js';
import type { WebhookChanges as StoredWebhookChanges, WebhookRecord } from '../../store/records.js';
import type { Store } from '../../store/store-contract.js';
import { type Clock, type Owner, ownedBy } from '../ports.js';
import { createDeliveryLog, type DeliveryLog, type DeliveryQueue } from './delivery-log.js';
import { openWebhookSecret, sealWebhookSecret } from './webhook-secret.js';
import { checkWebhookUrl, type WebhookUrlCheck } from './webhook-url.js';

/** The webhook resource, exactly as the API documents it (docs/api/webhooks.md). */
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

/** What an operator (and the console) sees of a webhook: the resource plus its key binding and health. */
export interface WebhookDetail extends WebhookView {
  apiKeyIds: string[];
  failingSince: string | null;
  disabledReason: string | null;
}

/** A new webhook: events null (or omitted) for every kind; apiKeyIds limit it to tasks those keys create. */
export interface NewWebhook {
  url: string;
  events?: string[] | null;
  apiKeyIds?: string[];
}

/** Any of these changed; re-enabling clears the record of failures that disabled it. */
export interface WebhookChanges {
  url?: string;
  events?: string[] | null;
  apiKeyIds?: string[];
  enabled?: boolean;
}

/**
 * Dashboard webhooks, everything the API, the console and the admin operations ask: the
 * resource, its signing secret, and its delivery log with test and redeliver. An `owner` of
 * null is the operator's (any account's webhook); another account's is WEBHOOK_NOT_FOUND.
 */
export interface WebhookService extends DeliveryLog {
  create(accountId: string, input: NewWebhook): Promise<WebhookView>;
  list(accountId: string): Promise<WebhookView[]>;
  get(owner: Owner, id: string): Promise<WebhookView>;
  update(owner: Owner, id: string, changes: WebhookChanges): Promise<WebhookView>;
  /** A new signing secret; the answer carries it. */
  rotateSecret(owner: Owner, id: string): Promise<WebhookView>;
  /** Deletes the webhook; its pending deliveries are dropped. */
  delete(owner: Owner, id: string): Promise<void>;
  operatorView(owner: Owner, id: string): Promise<WebhookDetail>;
  /** Every webhook of the account as an operator sees it. */
  listDetails(accountId: string): Promise<WebhookDetail[]>;
}

/**
 * The management of dashboard webhooks: CRUD for an account, the signing secret sealed at rest
 * with the secrets key, and the resource exactly as the API documents it (apiKeyIds and health
 * are kept but not shown). Test and redeliver queue through `delivery` (webhooks/outbox.ts).
 */
export function createWebhookService(deps: {
  store: Store;
  clock: Clock;
  secretsKey: Uint8Array;
  newSecret: () => string;
  delivery: DeliveryQueue;
  checkUrl?: WebhookUrlCheck;
}): WebhookService {
  const { store, clock } = deps;
  const now = () => isoTime(clock.now());
  const newSealedSecret = (id: string) => sealWebhookSecret(deps.secretsKey, id, deps.newSecret());

  const view = (webhook: WebhookRecord): WebhookView => ({
    id: webhook.id,
    userId: webhook.accountId,
    url: webhook.url,
    enabled: webhook.enabled,
    events: webhook.events,
    secret: openWebhookSecret(deps.secretsKey, webhook),
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  });

  const detail = (webhook: WebhookRecord): WebhookDetail => ({
    ...view(webhook),
    apiKeyIds: webhook.apiKeyIds,
    failingSince: webhook.failingSince ?? null,
    disabledReason: webhook.disabledReason ?? null,
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

  return {
    async create(accountId, input) {
      checkWebhookUrl(input.url, deps.checkUrl);
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
        sealedSecret: newSealedSecret(id),
        createdAt: at,
        updatedAt: at,
      });
      return view(webhook);
    },
    async list(accountId) {
      return (await store.webhooks.listByAccount(accountId)).map(view);
    },
    async get(owner, id) {
      return view(await owned(owner, id));
    },
    async update(owner, id, changes) {
      const webhook = await owned(owner, id);
      if (changes.url !== undefined) checkWebhookUrl(changes.url, deps.checkUrl);
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
    async rotateSecret(owner, id) {
      await owned(owner, id);
      return view(await updated(id, { sealedSecret: newSealedSecret(id), updatedAt: now() }));
    },
    async delete(owner, id) {
      await owned(owner, id);
      await store.webhooks.delete(id);
    },
    async operatorView(owner, id) {
      return detail(await owned(owner, id));
    },
    async listDetails(accountId) {
      return (await store.webhooks.listByAccount(accountId)).map(detail);
    },
    ...createDeliveryLog({ store, queue: deps.delivery, owned }),
  };
}
