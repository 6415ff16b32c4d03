import pg from 'pg';
import type { DumpCounts, DumpRecord } from '../dump.js';
import type { AccountRepo } from '../repos/accounts.js';
import type { ApiKeyRepo, RequestWindowRepo } from '../repos/api-keys.js';
import type { BillingRepo } from '../repos/billing-alerts.js';
import type { ConsoleSessionRepo } from '../repos/console-sessions.js';
import type { DestinationRepo } from '../repos/destinations.js';
import type { IdempotencyRepo } from '../repos/idempotency.js';
import type { LanePauseRepo } from '../repos/lane-pauses.js';
import type { SecretRepo } from '../repos/secrets.js';
import type { SharedQueueStore } from '../repos/shared-queue.js';
import type { TaskRepo } from '../repos/tasks.js';
import type { UploadRepo } from '../repos/uploads.js';
import type { WebhookRepo } from '../repos/webhooks.js';
import type { LedgerView, Store } from '../store-contract.js';
import { clientConfig, createPool } from './connection.js';
import { createDbHealth, type DbHealth } from './connection-health.js';
import type { Db } from './db.js';
import { pgRecords } from './dump-export.js';
import { pgLoad } from './dump-import.js';
import { createPgKeySlots } from './key-slots.js';
import { createPgFleetLanes } from './lane-fleet.js';
import { currentVersion, schemaProblem } from './migrations.js';
import { createPipelines, type Pipelines } from './pipelines.js';
import { createPgAccountRepo } from './repos/accounts.js';
import { createPgApiKeyRepo, createPgRequestWindows } from './repos/api-keys.js';
import { createPgBillingRepo } from './repos/billing-alerts.js';
import { createPgConsoleSessionRepo } from './repos/console-sessions.js';
import { createPgDestinationRepo } from './repos/destinations.js';
import { createPgIdempotencyRepo } from './repos/idempotency.js';
import { createPgLanePauseRepo } from './repos/lane-pauses.js';
import { createPgLeaseRepo } from './repos/leases.js';
import { createPgSecretRepo } from './repos/secrets.js';
import { createPgTaskRepo } from './repos/tasks.js';
import { createPgUploadRepo } from './repos/uploads.js';
import { createPgWebhookRepo } from './repos/webhooks.js';
import { createPgSignals } from './signals.js';
import { poolDb } from './sql.js';

export interface PgStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  log?: (message: string) => void;
  /** Shown in pg_stat_activity (default "imgtask"). */
  applicationName?: string;
}

/**
 * The Store over PostgreSQL: every write one transaction (or one statement), durable once it
 * resolves (the server's commit). Several processes may open the same database: the money
 * invariants hold across them through row locks (see tasks.ts).
 */
export class PgStore implements Store {
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
  readonly requestWindows: RequestWindowRepo;
  /**
   * What the processes on this database run tasks together with: NOTIFY/LISTEN and advisory
   * locks (a dedicated connection, opened on first use), and task leases.
   */
  readonly shared: SharedQueueStore;
  private closed = false;
  /** Whether the database answers, for GET /ready (see health.ts). */
  private readonly health: DbHealth;
  private readonly db: Db;

  /** The connections batches and named statements go through (pipelines.ts). */
  private readonly pipelines: Pipelines;

  private constructor(
    readonly pool: pg.Pool,
    options: PgStoreOptions,
  ) {
    this.health = createDbHealth(() => probe(options.url, options.applicationName), options.log);
    // An idle pooled connection that breaks (the server restarts) is the first sign when no request runs.
    pool.on('error', (err) => this.health.failed(err));
    // Its statements are the batches' and the point reads' (named, prepared once per connection),
    // each a lookup by key or over the rows a batch names: planned once (a generic plan), with
    // index scans (a table just created, its statistics not gathered yet, would otherwise get a
    // plan for an empty table).
    this.pipelines = createPipelines({
      url: options.url,
      count: PIPELINED_CONNECTIONS,
      applicationName: options.applicationName,
      setup: 'SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off',
      onBroken: (err) => this.health.failed(err),
    });
    const signals = createPgSignals(options.url, options.log, options.applicationName, (err) =>
      this.health.failed(err),
    );
    const db = poolDb(pool, () => this.closed, this.health, this.pipelines);
    this.db = db;
    this.shared = {
      signals,
      leases: createPgLeaseRepo(db),
      keySlots: createPgKeySlots(signals),
      lanes: createPgFleetLanes(db),
    };
    this.accounts = createPgAccountRepo(db);
    this.apiKeys = createPgApiKeyRepo(db);
    this.tasks = createPgTaskRepo(db);
    this.secrets = createPgSecretRepo(db);
    this.webhooks = createPgWebhookRepo(db);
    this.destinations = createPgDestinationRepo(db);
    this.billing = createPgBillingRepo(db);
    this.idempotency = createPgIdempotencyRepo(db);
    this.consoleSessions = createPgConsoleSessionRepo(db);
    this.lanePauses = createPgLanePauseRepo(db);
    this.uploads = createPgUploadRepo(db);
    this.requestWindows = createPgRequestWindows(db);
  }

  /** Connects and checks the schema: refuses a database without it ("run imgtask migrate") or with a newer one. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const pool = createPool(options);
    try {
      const problem = schemaProblem(await currentVersion(pool));
      if (problem) throw new Error(`postgres: ${problem}`);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PgStore(pool, options);
  }

  records(): AsyncIterable<DumpRecord> {
    if (this.closed) throw new Error('the store is closed');
    return pgRecords(this.pool);
  }

  load(records: AsyncIterable<DumpRecord>): Promise<DumpCounts> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return pgLoad(this.pool, records);
  }

  /** The ledger's records as of one moment: one REPEATABLE READ READ ONLY transaction. */
  snapshot<T>(fn: (view: LedgerView) => Promise<T>): Promise<T> {
    return this.db.snapshot((db) =>
      fn({ accounts: createPgAccountRepo(db), apiKeys: createPgApiKeyRepo(db), tasks: createPgTaskRepo(db) }),
    );
  }

  writeFailure(): string | null {
    return this.closed ? 'the store is closed' : this.health.failure();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    await this.shared.signals.close();
    await Promise.all([this.pool.end(), this.pipelines.close()]);
  }
}

/** The connections batches and named statements share (pipelines.ts). */
const PIPELINED_CONNECTIONS = 2;

/** How long the readiness probe waits for the database to connect, then to answer. */
const PROBE_TIMEOUT_MS = 2000;

/** One SELECT 1 on a connection of its own (not the pool's, whose connections may all be waited for). */
async function probe(url: string, applicationName = 'imgtask'): Promise<void> {
  const client = new pg.Client({
    ...clientConfig(url),
    application_name: `${applicationName} probe`,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => {}); // a connection breaking under it fails the query below
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}
