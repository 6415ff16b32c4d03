import type pg from 'pg';
import type { DumpCounts, DumpRecord } from '../dump.js';
import type { AccountRepo, ApiKeyRepo, BillingRepo, DestinationRepo, IdempotencyRepo, RequestWindowRepo, SecretRepo, Store, StoreSignals, TaskRepo, WebhookRepo } from '../types.js';
import { createPgAccountRepo } from './accounts.js';
import { createPgApiKeyRepo, createPgRequestWindows } from './api-keys.js';
import { createPgBillingRepo } from './billing-alerts.js';
import { createPgDestinationRepo } from './destinations.js';
import { pgLoad, pgRecords } from './dump.js';
import { createPgIdempotencyRepo } from './idempotency.js';
import { currentVersion, schemaProblem } from './migrations.js';
import { createPgSecretRepo } from './secrets.js';
import { createPgSignals } from './signals.js';
import { createPool, poolDb } from './sql.js';
import { createPgTaskRepo } from './tasks.js';
import { createPgWebhookRepo } from './webhooks.js';

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
  readonly requestWindows: RequestWindowRepo;
  /** NOTIFY/LISTEN and advisory locks between the processes on this database (a dedicated connection, opened on first use). */
  readonly signals: StoreSignals;
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    options: PgStoreOptions,
  ) {
    this.signals = createPgSignals(options.url, options.log, options.applicationName);
    const db = poolDb(pool, () => this.closed);
    this.accounts = createPgAccountRepo(db);
    this.apiKeys = createPgApiKeyRepo(db);
    this.tasks = createPgTaskRepo(db);
    this.secrets = createPgSecretRepo(db);
    this.webhooks = createPgWebhookRepo(db);
    this.destinations = createPgDestinationRepo(db);
    this.billing = createPgBillingRepo(db);
    this.idempotency = createPgIdempotencyRepo(db);
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

  writeFailure(): string | null {
    return this.closed ? 'the store is closed' : null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.signals.close();
    await this.pool.end();
  }
}
