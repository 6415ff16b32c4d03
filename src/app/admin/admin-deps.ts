import type { ConfigSource } from '../../config/source.js';
import type { OutputSigner } from '../../domain/provenance.js';
import type { TaskService } from '../../engine/task-service.js';
import type { AccountErase } from '../../services/account-erase.js';
import type { AccountService } from '../../services/accounts.js';
import type { ApiKeyService } from '../../services/api-keys.js';
import type { ConsoleSessionService } from '../../services/console-sessions.js';
import type { DestinationService } from '../../services/destinations.js';
import type { LedgerReport } from '../../services/doctor.js';
import type { OperatorService } from '../../services/operator.js';
import type { Clock } from '../../services/ports.js';
import type { Retention } from '../../services/retention-sweep.js';
import type { SecretService } from '../../services/secrets.js';
import type { SpaceGuard } from '../../services/space-guard.js';
import type { StorageInventoryService } from '../../services/storage-inventory.js';
import type { TokenService } from '../../services/tokens.js';
import type { UsageService } from '../../services/usage.js';
import type { WebhookService } from '../../services/webhooks/webhook-service.js';
import type { LanePauseRecord } from '../../store/records.js';

/** What the operator actions (the CLI on a data dir, the admin socket of a running server) need. */
export interface AdminDeps {
  /** The config in force. */
  config: ConfigSource;
  clock: Clock;
  /** The base of the URLs the service hands out (a console sign-in link). */
  publicBase: () => string;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  tokens: Pick<TokenService, 'issueAccessToken'>;
  consoleSessions: ConsoleSessionService;
  /** Webhooks, with their delivery log, test and redelivery. */
  webhooks: WebhookService;
  destinations: DestinationService;
  usage: UsageService;
  operator: OperatorService;
  /** Provider keys and header values, sealed with the data dir's key. */
  secrets: SecretService;
  /** Rebuilds the providers, after a secret they use changed. */
  refreshProviders(): Promise<void>;
  /** Pausing and resuming lanes, fleet-wide on a shared database. */
  engine: {
    pauseLane(lane: string): Promise<LanePauseRecord>;
    /** False when the lane was not paused. */
    resumeLane(lane: string): Promise<boolean>;
  };
  /** Expiry (imgtask sweep). */
  tasks: Pick<TaskService, 'sweep'>;
  accountErase: AccountErase;
  retention: Retention;
  /** The ledger's consistency (imgtask doctor): the one store read an operator action needs. */
  checkLedger(): Promise<LedgerReport>;
  /** Free space against store.minFreeBytes. */
  space: Pick<SpaceGuard, 'report'>;
  /** What the blob storage holds, and orphans (imgtask doctor, --fix). */
  storageInventory: Pick<StorageInventoryService, 'take'>;
  /** The signer's state and certificate (doctor, imgtask provenance show). */
  outputSigner: Pick<OutputSigner, 'status'>;
}
