import type { Ops } from '../api/api-deps.js';
import type { ConfigSource } from '../config/source.js';
import type { OutputSigner } from '../domain/provenance.js';
import type { Engine } from '../engine/engine.js';
import type { TaskTypeRegistry } from '../engine/task-registry.js';
import type { AccountErase } from '../services/account-erase.js';
import type { AccountService } from '../services/accounts.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { AuthService } from '../services/auth.js';
import type { ConsoleSessionService } from '../services/console-sessions.js';
import type { DataRemoval } from '../services/data-removal.js';
import type { DestinationService } from '../services/destinations.js';
import type { EventBus } from '../services/event-bus.js';
import type { IdempotencyService } from '../services/idempotency.js';
import type { ImageLibrary } from '../services/image-library.js';
import type { OperatorService } from '../services/operator.js';
import type { Clock } from '../services/ports.js';
import type { Retention } from '../services/retention-sweep.js';
import type { SecretService } from '../services/secrets.js';
import type { SpaceGuard } from '../services/space-guard.js';
import type { StorageInventoryService } from '../services/storage-inventory.js';
import type { TokenService } from '../services/tokens.js';
import type { UploadService } from '../services/uploads.js';
import type { UsageService } from '../services/usage.js';
import type { VerifySource } from '../services/verify-source.js';
import type { VideoLibrary } from '../services/video-library.js';
import type { WebhookService } from '../services/webhooks/webhook-service.js';
import type { Store } from '../store/store-contract.js';
import type { BillingAlerts } from '../webhooks/billing-alerts.js';
import type { Outbox } from '../webhooks/outbox.js';
import type { DataDirLayout } from './data-dir.js';
import type { ConfigReload } from './reload.js';

/**
 * Every service openServices builds, by name: what the facades (ApiDeps, ConsoleDeps, AdminDeps,
 * Lifecycle) and the test-facing internals are picked from.
 */
export interface ServiceParts {
  config: ConfigSource;
  configReload: ConfigReload;
  clock: Clock;
  /** Plain messages. */
  log: (message: string) => void;
  layout: DataDirLayout;
  /** The base of the URLs the service hands out. */
  publicBase: () => string;
  store: Store;
  events: EventBus;
  secrets: SecretService;
  space: SpaceGuard;
  outputSigner: OutputSigner;
  images: ImageLibrary;
  uploads: UploadService;
  videos: VideoLibrary;
  verifySource: VerifySource;
  destinations: DestinationService;
  registry: TaskTypeRegistry;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  tokens: TokenService;
  auth: AuthService;
  engine: Engine;
  outbox: Outbox;
  webhooks: WebhookService;
  dataRemoval: DataRemoval;
  accountErase: AccountErase;
  retention: Retention;
  operator: OperatorService;
  idempotency: IdempotencyService;
  billingAlerts: BillingAlerts;
  usage: UsageService;
  storageInventory: StorageInventoryService;
  consoleSessions: ConsoleSessionService;
  /** What the access log and the operations routes read (app/api-ops.ts). */
  ops: Ops;
}
