import { type DumpCounts, type DumpRecord, StoreNotEmptyError, zeroCounts } from '../dump.js';
import type { DumpKind } from '../dump-kinds.js';
import type { AccountRepo } from '../repos/accounts.js';
import type { ApiKeyRepo, RequestWindowRepo } from '../repos/api-keys.js';
import type { BillingRepo } from '../repos/billing-alerts.js';
import type { ConsoleSessionRepo } from '../repos/console-sessions.js';
import type { DestinationRepo } from '../repos/destinations.js';
import type { IdempotencyRepo } from '../repos/idempotency.js';
import type { LanePauseRepo } from '../repos/lane-pauses.js';
import type { SecretRepo } from '../repos/secrets.js';
import type { TaskRepo } from '../repos/tasks.js';
import type { UploadRepo } from '../repos/uploads.js';
import type { WebhookRepo } from '../repos/webhooks.js';
import type { Store } from '../store-contract.js';
import type { Collection } from './collection.js';
import { JournalEngine, type JournalEngineOptions } from './journal/journal-engine.js';
import { createAccountRepo } from './repos/accounts.js';
import { createApiKeyRepo, createMemoryRequestWindows } from './repos/api-keys.js';
import { createBillingRepo } from './repos/billing-alerts.js';
import { createConsoleSessionRepo } from './repos/console-sessions.js';
import { createDestinationRepo } from './repos/destinations.js';
import { createIdempotencyRepo } from './repos/idempotency.js';
import { createLanePauseRepo } from './repos/lane-pauses.js';
import { createSecretRepo } from './repos/secrets.js';
import { createTaskRepo } from './repos/tasks.js';
import { createUploadRepo } from './repos/uploads.js';
import { createWebhookRepo } from './repos/webhooks.js';
import type { State } from './state.js';

/** The journaled JSON store: the Store interface over a JournalEngine. */
export class JsonStore implements Store {
  readonly accounts: AccountRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly tasks: TaskRepo;
  readonly secrets: SecretRepo;
  readonly webhooks: WebhookRepo;
  readonly destinations: DestinationRepo;
  readonly billing: BillingRepo;
  readonly idempotency: IdempotencyRepo;
  readonly consoleSessions: ConsoleSessionRepo;
  readonly lanePauses: LanePauseRepo;
  readonly uploads: UploadRepo;
  readonly requestWindows: RequestWindowRepo = createMemoryRequestWindows();

  private constructor(readonly engine: JournalEngine) {
    this.accounts = createAccountRepo(engine);
    this.apiKeys = createApiKeyRepo(engine);
    this.tasks = createTaskRepo(engine);
    this.secrets = createSecretRepo(engine);
    this.webhooks = createWebhookRepo(engine);
    this.destinations = createDestinationRepo(engine);
    this.billing = createBillingRepo(engine);
    this.idempotency = createIdempotencyRepo(engine);
    this.consoleSessions = createConsoleSessionRepo(engine);
    this.lanePauses = createLanePauseRepo(engine);
    this.uploads = createUploadRepo(engine);
  }

  static async open(options: JournalEngineOptions): Promise<JsonStore> {
    return new JsonStore(await JournalEngine.open(options));
  }

  async *records(): AsyncGenerator<DumpRecord> {
    const { state } = this.engine;
    for (const [kind, collection] of collectionsByKind(state)) {
      if (kind !== 'delivery') {
        for (const record of collection.values()) yield { kind, record } as DumpRecord;
        continue;
      }
      // Deliveries settled first, then the pending ones in the order they became pending (the
      // order `pendingDeliveries` answers), so a loader that keeps load order keeps that order too.
      for (const delivery of state.deliveries.values())
        if (delivery.status !== 'pending') yield { kind: 'delivery', record: delivery };
      for (const id of state.pendingDeliveries.ids) yield { kind: 'delivery', record: state.deliveries.get(id)! };
    }
  }

  async load(records: AsyncIterable<DumpRecord>): Promise<DumpCounts> {
    const holds = zeroCounts();
    const collections = collectionsByKind(this.engine.state);
    for (const [kind, collection] of collections) holds[kind] = collection.size;
    if (Object.values(holds).some((count) => count > 0)) throw new StoreNotEmptyError(holds);
    const counts = zeroCounts();
    await this.engine.bulkLoad(async () => {
      for await (const { kind, record } of records) {
        collections.get(kind)!.load(record);
        counts[kind] += 1;
      }
    });
    return counts;
  }

  writeFailure(): string | null {
    return this.engine.writeFailure();
  }

  compact(): Promise<void> {
    return this.engine.compact();
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}

/** The state's collections by dump kind, in dump order. */
function collectionsByKind(state: State): Map<DumpKind, Collection<{ id: string }>> {
  const byKind: [DumpKind, unknown][] = [
    ['account', state.accounts],
    ['credit', state.credits],
    ['apiKey', state.apiKeys],
    ['task', state.tasks],
    ['secret', state.secrets],
    ['webhook', state.webhooks],
    ['event', state.events],
    ['delivery', state.deliveries],
    ['destination', state.destinations],
    ['upload', state.uploads],
  ];
  return new Map(byKind as unknown as [DumpKind, Collection<{ id: string }>][]);
}
