import type { DumpCounts, DumpRecord } from './dump.js';
import type { AccountRepo } from './repos/accounts.js';
import type { ApiKeyRepo, RequestWindowRepo } from './repos/api-keys.js';
import type { BillingRepo } from './repos/billing-alerts.js';
import type { ConsoleSessionRepo } from './repos/console-sessions.js';
import type { DestinationRepo } from './repos/destinations.js';
import type { IdempotencyRepo } from './repos/idempotency.js';
import type { LanePauseRepo } from './repos/lane-pauses.js';
import type { SecretRepo } from './repos/secrets.js';
import type { SharedQueueStore } from './repos/shared-queue.js';
import type { TaskRepo } from './repos/tasks.js';
import type { UploadRepo } from './repos/uploads.js';
import type { WebhookRepo } from './repos/webhooks.js';

/**
 * The store as services see it. Each write method is atomic: its checks and its change
 * happen together, and its promise resolves only once the change is durable. A
 * Postgres-backed store implements the same interface with transactions.
 */
export interface Store {
  readonly accounts: AccountRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly tasks: TaskRepo;
  readonly secrets: SecretRepo;
  readonly webhooks: WebhookRepo;
  readonly destinations: DestinationRepo;
  /** Per-key request counts (requestsPerMinute); not in dumps. */
  readonly requestWindows: RequestWindowRepo;
  /** Usage over settled tasks' charges, and budget alert marks. */
  readonly billing: BillingRepo;
  /** Idempotency-Key claims and answers. */
  readonly idempotency: IdempotencyRepo;
  /** The web console's sign-in links and sessions; not in dumps. */
  readonly consoleSessions: ConsoleSessionRepo;
  /** Lanes an operator paused; not in dumps. */
  readonly lanePauses: LanePauseRepo;
  /** Who uploaded which image (POST /image/upload): in dumps. */
  readonly uploads: UploadRepo;
  /**
   * What processes sharing this store need to run its tasks together (PostgreSQL): signals
   * between them and task leases. Undefined for a store one process owns (the file store), whose
   * process queues its tasks itself. The engine picks its intake by it (engine/intake/intake.ts).
   */
  readonly shared?: SharedQueueStore;
  /**
   * Runs `fn` over the ledger's records as of one moment, while others write (PostgreSQL: one
   * REPEATABLE READ transaction). Absent where the repos' reads already see one moment (the
   * file store answers them from memory, with no write in between).
   */
  snapshot?<T>(fn: (view: LedgerView) => Promise<T>): Promise<T>;
  /**
   * Every record, kind by kind in the dump's order (see dump.ts), as of one moment: what
   * `imgtask store export` writes. Nothing may write to the store meanwhile (the file store holds
   * its lock; PostgreSQL reads one snapshot).
   */
  records(): AsyncIterable<DumpRecord>;
  /**
   * Loads a dump's records into this store, which must hold none (StoreNotEmptyError, naming what
   * it holds, before any record is read), all or nothing: one transaction, or one snapshot.
   * Balances, credits and charges are taken as they are; reserves and key spend follow from the tasks.
   */
  load(records: AsyncIterable<DumpRecord>): Promise<DumpCounts>;
  /** Why writes are refused now (the store is closed, or a journal write failed); null while it takes writes. */
  writeFailure(): string | null;
  /**
   * Rewrites what the store keeps on disk so removed data is gone from it (the file store: a
   * snapshot of what is live now, then older journal segments and snapshots deleted; encoded in
   * slices so writes wait at most a few ms at a time). Absent where a write already replaces the
   * bytes (PostgreSQL: see docs/data-lifecycle.md for VACUUM and WAL).
   */
  compact?(): Promise<void>;
  /** Flushes, writes a snapshot if the journal holds anything, and releases the lock. */
  close(): Promise<void>;
}

/** What a ledger check reads: the money records. */
export type LedgerView = Pick<Store, 'accounts' | 'apiKeys' | 'tasks'>;

// The repositories' contracts, one module per resource in repos/, gathered here for code across layers.
export * from './repos/accounts.js';
export * from './repos/api-keys.js';
export * from './repos/billing-alerts.js';
export * from './repos/console-sessions.js';
export * from './repos/destinations.js';
export * from './repos/idempotency.js';
export * from './repos/lane-pauses.js';
export * from './repos/secrets.js';
export * from './repos/shared-queue.js';
export * from './repos/tasks.js';
export * from './repos/uploads.js';
export * from './repos/webhooks.js';
