import { JournalEngine, type JournalEngineOptions } from './journal-engine.js';
import { createAccountRepo } from './repos/accounts.js';
import { createApiKeyRepo } from './repos/api-keys.js';
import { createDestinationRepo } from './repos/destinations.js';
import { createSecretRepo } from './repos/secrets.js';
import { createTaskRepo } from './repos/tasks.js';
import { createWebhookRepo } from './repos/webhooks.js';
import type { AccountRepo, ApiKeyRepo, DestinationRepo, SecretRepo, Store, TaskRepo, WebhookRepo } from './types.js';

/** The journaled JSON store: the Store interface over a JournalEngine. */
export class JsonStore implements Store {
  readonly accounts: AccountRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly tasks: TaskRepo;
  readonly secrets: SecretRepo;
  readonly webhooks: WebhookRepo;
  readonly destinations: DestinationRepo;

  private constructor(readonly engine: JournalEngine) {
    this.accounts = createAccountRepo(engine);
    this.apiKeys = createApiKeyRepo(engine);
    this.tasks = createTaskRepo(engine);
    this.secrets = createSecretRepo(engine);
    this.webhooks = createWebhookRepo(engine);
    this.destinations = createDestinationRepo(engine);
  }

  static async open(options: JournalEngineOptions): Promise<JsonStore> {
    return new JsonStore(await JournalEngine.open(options));
  }

  writeFailure(): string | null {
    return this.engine.writeFailure();
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
