import type { Period } from '../domain/periods.js';
import type { DumpCounts, DumpRecord } from './dump.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  CreditRecord,
  DeliveryAttempt,
  DeliveryRecord,
  DestinationRecord,
  EventRecord,
  ItemRecord,
  SecretRecord,
  TaskRecord,
  TaskSettlement,
  WebhookRecord,
} from './records.js';

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
  /** Cross-process signals; undefined for a store one process owns (the file store). */
  readonly signals?: StoreSignals;
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
  /** Flushes, writes a snapshot if the journal holds anything, and releases the lock. */
  close(): Promise<void>;
}

export interface AccountRepo {
  /** Fails with VALIDATION_ERROR when the name is taken. */
  create(account: AccountRecord): Promise<AccountRecord>;
  credit(credit: CreditRecord): Promise<AccountRecord>;
  get(id: string): Promise<AccountRecord | undefined>;
  getByName(name: string): Promise<AccountRecord | undefined>;
  list(): Promise<AccountRecord[]>;
  /** Every credit of the account, oldest first. */
  credits(accountId: string): Promise<CreditRecord[]>;
}

export interface ApiKeyRepo {
  /** Fails with API_KEY_LIMIT_REACHED when the account already holds `maxLive` live keys. */
  create(key: ApiKeyRecord, limits: { maxLive: number }): Promise<ApiKeyRecord>;
  /** Marks a key revoked; returns the updated key, or undefined when it is unknown or already revoked. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** The live key with this hash, if any. */
  getLiveByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listLive(accountId: string): Promise<ApiKeyRecord[]>;
}

/** A page of an account's tasks, as plain data, so any backend can answer it (SQL included). */
export interface TaskListQuery {
  limit: number;
  /** Only tasks whose id sorts before this one (the cursor). */
  before?: string;
  /** ISO timestamps: createdAt >= createdAfter and < createdBefore. */
  createdAfter?: string;
  createdBefore?: string;
  status?: TaskRecord['status'];
  type?: string;
  /** Top-level metadata keys and the text their value must equal. */
  metadata?: Readonly<Record<string, string>>;
}

export interface TaskRepo {
  /**
   * Inserts a pending task and so reserves its estimate, atomically with the checks:
   * INSUFFICIENT_BALANCE when the account's available balance is below the estimate;
   * SPENDING_LIMIT_EXCEEDED when the key's spend in the period plus the estimate passes the limit.
   */
  create(task: TaskRecord, limits: { spendingLimit?: { limit: number; period: Period } }): Promise<TaskRecord>;
  /** Records a finished item; undefined (nothing written) when the task or item is no longer pending. */
  recordItem(id: string, index: number, item: ItemRecord, at: string): Promise<TaskRecord | undefined>;
  /** Keeps what `prepare` worked out; undefined (nothing written) when the task is no longer pending. */
  savePrepared(id: string, prepared: unknown, at: string): Promise<TaskRecord | undefined>;
  /** Settles a pending task: one record charges `cost` and releases the rest. Undefined when already settled. */
  settle(settlement: TaskSettlement): Promise<TaskRecord | undefined>;
  get(id: string): Promise<TaskRecord | undefined>;
  listPending(): Promise<TaskRecord[]>;
  countPending(): Promise<number>;
  /** The account's tasks, newest first. `more` says another page exists. */
  list(accountId: string, query: TaskListQuery): Promise<{ tasks: TaskRecord[]; more: boolean }>;
  reserved(accountId: string): Promise<number>;
  keySpend(keyId: string, period: Period, millis: number): Promise<number>;
  all(): Promise<Iterable<TaskRecord>>;
  countsByStatus(): Promise<{ pending: number; completed: number; failed: number }>;
  /** How many tasks there are of each type and status (kept as counts: no scan). */
  countsByTypeStatus(): Promise<{ type: string; status: TaskRecord['status']; count: number }[]>;
  /** The newest tasks across accounts, newest first. */
  recent(limit: number): Promise<TaskRecord[]>;
  /**
   * Leases up to `limit` pending tasks, oldest first, to `workerId` for `leaseMs`: those with no
   * lease or whose lease has expired. Two callers at once never get the same task.
   */
  claim(workerId: string, limit: number, leaseMs: number): Promise<TaskRecord[]>;
  /** Extends the leases `workerId` still holds among `ids` by `leaseMs` from now; answers those ids (a lease lost or a task settled is left out). */
  renewLeases(workerId: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Gives a task's lease back (when `workerId` holds it), so another worker may claim it at once. */
  release(workerId: string, id: string): Promise<void>;
}

/**
 * What processes sharing one database tell each other (PostgreSQL: NOTIFY/LISTEN and session
 * advisory locks on one dedicated connection). The file store has none: one process owns it.
 */
export interface StoreSignals {
  /** Sends `payload` on `channel` to every listening process (this one included). */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `fn` with each payload sent on `channel` (from now on, and again after a reconnection). */
  listen(channel: string, fn: (payload: string) => void): Promise<void>;
  /** Called after the dedicated connection was lost and opened again: held locks are gone, notifications may have been missed. */
  onReconnect(fn: () => void): void;
  /** Takes the advisory lock `key` for this process if free (true), or says it already holds it; held until `unlock` or the connection ends. */
  tryLock(key: number): Promise<boolean>;
  unlock(key: number): Promise<void>;
  close(): Promise<void>;
}

export interface SecretRepo {
  put(secret: SecretRecord): Promise<void>;
  /** False when there was no such secret. */
  delete(id: string): Promise<boolean>;
  get(id: string): Promise<SecretRecord | undefined>;
  list(): Promise<SecretRecord[]>;
}

export interface WebhookRepo {
  put(webhook: WebhookRecord): Promise<WebhookRecord>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<WebhookRecord | undefined>;
  listByAccount(accountId: string): Promise<WebhookRecord[]>;
  /** Records an event with all its deliveries, and marks its task, in one write. */
  recordEvent(event: EventRecord, deliveries: DeliveryRecord[]): Promise<void>;
  /** Marks a settled task whose event no endpoint wanted (nothing else is stored). */
  markNoEvent(taskId: string): Promise<void>;
  getEvent(id: string): Promise<EventRecord | undefined>;
  /** Settled tasks whose event was never recorded (a crash fell between). */
  settledWithoutEvent(): Promise<TaskRecord[]>;
  recordAttempt(id: string, attempt: DeliveryAttempt, status: DeliveryRecord['status'], nextAttemptAt: string | null): Promise<DeliveryRecord>;
  redeliver(id: string, at: string): Promise<DeliveryRecord | undefined>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  pendingDeliveries(): Promise<DeliveryRecord[]>;
  /**
   * Pending deliveries in the order they fall due (then by id), leaving out the ids in `skip`
   * (those already in flight): at most `limit`, due or not. SQL: ORDER BY next_attempt_at, id LIMIT.
   */
  nextDeliveries(limit: number, skip: ReadonlySet<string>): Promise<DeliveryRecord[]>;
  /** A webhook's deliveries, newest first. */
  deliveriesOf(webhookId: string, limit: number): Promise<DeliveryRecord[]>;
  deliveryCounts(): Promise<{ pending: number; delivered: number; failed: number }>;
  listAll(): Promise<WebhookRecord[]>;
}

export interface DestinationRepo {
  /** Inserts or replaces; DESTINATION_NAME_TAKEN when another destination of the account has the name. */
  put(destination: DestinationRecord): Promise<DestinationRecord>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<DestinationRecord | undefined>;
  getByName(accountId: string, name: string): Promise<DestinationRecord | undefined>;
  listByAccount(accountId: string): Promise<DestinationRecord[]>;
}
