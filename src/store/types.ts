import type { Period } from '../domain/periods.js';
import type { DumpCounts, DumpRecord } from './dump.js';
import type {
  AccountChanges,
  AccountRecord,
  ApiKeyChanges,
  ApiKeyRecord,
  BillingAlertRecord,
  ConsoleSessionRecord,
  CreditRecord,
  DeliveryAttempt,
  DeliveryRecord,
  DestinationRecord,
  EventRecord,
  IdempotencyRecord,
  ItemRecord,
  LanePauseRecord,
  SecretRecord,
  TaskRecord,
  TaskSettlement,
  UploadRecord,
  WebhookChanges,
  WebhookHealth,
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

export interface AccountRepo {
  /** Fails with VALIDATION_ERROR when the name is taken. */
  create(account: AccountRecord): Promise<AccountRecord>;
  credit(credit: CreditRecord): Promise<AccountRecord>;
  /** Changes an account's settings (its weight); undefined when there is no such account. */
  update(id: string, changes: AccountChanges, at: string): Promise<AccountRecord | undefined>;
  get(id: string): Promise<AccountRecord | undefined>;
  getByName(name: string): Promise<AccountRecord | undefined>;
  list(): Promise<AccountRecord[]>;
  /** Every credit of the account, oldest first. */
  credits(accountId: string): Promise<CreditRecord[]>;
}

/**
 * `maxLive` bounds the account's live keys: not revoked, and not expired at `now` (an ISO time;
 * without it, expiry is not looked at).
 */
export interface KeyLimits {
  maxLive: number;
  now?: string;
}

export interface ApiKeyRepo {
  /** Fails with API_KEY_LIMIT_REACHED when the account already holds `maxLive` live keys. */
  create(key: ApiKeyRecord, limits: KeyLimits): Promise<ApiKeyRecord>;
  /** Marks a key revoked; returns the updated key, or undefined when it is unknown or already revoked. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this hash that is not revoked, if any (expiry is the caller's to check). */
  getLiveByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** The account's keys that are not revoked, oldest first (expired ones included). */
  listLive(accountId: string): Promise<ApiKeyRecord[]>;
  /** Changes a key's settings; undefined when it is unknown or revoked. */
  update(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | undefined>;
  /** Removes the name (a client's text) of every key of the account, revoked ones included (an erase); answers how many had one. */
  forgetNames(accountId: string): Promise<number>;
  /** Records when a key was last used; a time older than the one kept is ignored. */
  touch(id: string, at: string): Promise<void>;
  /**
   * Replaces key `id` by `next` in one write: the old key is revoked (`end.revokedAt`) or gets
   * `end.expiresAt`; `next` counts against `maxLive` (the old key too, unless revoked here).
   * Undefined, with nothing written, when the old key is unknown, revoked or expired at `now`.
   */
  rotate(
    id: string,
    next: ApiKeyRecord,
    end: { revokedAt?: string; expiresAt?: string },
    limits: KeyLimits,
  ): Promise<ApiKeyRecord | undefined>;
}

/**
 * Per-key request counters in fixed windows (requestsPerMinute). Shared by every process on
 * PostgreSQL; in memory for the file store (one process owns it).
 */
export interface RequestWindowRepo {
  /** Counts one request of the key in the window starting at `windowStart` (ms); the count so far, this one included. */
  hit(keyId: string, windowStart: number): Promise<number>;
}

/** A page of an account's tasks, as plain data, so any backend can answer it (SQL included). */
export interface TaskListQuery {
  limit: number;
  /** Only tasks whose id sorts before this one (the cursor). */
  before?: string;
  /**
   * Only tasks whose id sorts after this one: the page just newer than it (a "newer" cursor).
   * The `limit` oldest of those, still listed newest first; `more` then says whether newer ones remain.
   */
  after?: string;
  /** ISO timestamps: createdAt >= createdAfter and < createdBefore. */
  createdAfter?: string;
  createdBefore?: string;
  status?: TaskRecord['status'];
  type?: string;
  /** Only tasks created with this API key. */
  apiKeyId?: string;
  /** Top-level metadata keys and the text their value must equal. */
  metadata?: Readonly<Record<string, string>>;
}

export interface CreateOptions {
  /** The key's spending limit, when it has one. */
  spendingLimit?: { limit: number; period: Period };
  /**
   * A shared store: the task is written already leased to `owner` for `ms` (the process that
   * creates it runs it: no other process claims it, and no claim is needed). Other stores ignore it.
   */
  lease?: { owner: string; ms: number };
  /** The lane the task's items run in: where a shared store queues it for claims (docs/scheduling.md). Other stores ignore it. */
  lane?: string;
}

export interface TaskRepo {
  /**
   * Inserts a pending task and so reserves its estimate, atomically with the checks:
   * INSUFFICIENT_BALANCE when the account's available balance is below the estimate;
   * SPENDING_LIMIT_EXCEEDED when the key's spend in the period plus the estimate passes the limit.
   */
  create(task: TaskRecord, options: CreateOptions): Promise<TaskRecord>;
  /**
   * Records a finished item; undefined (nothing written) when the task or item is no longer
   * pending. `prepared`: what prepare worked out, kept in the same write when the task has none
   * yet: the plan is journaled with the first item made with it, so a task restarted before
   * any item finished is simply prepared again, and one restarted after runs on that plan.
   */
  recordItem(
    id: string,
    index: number,
    item: ItemRecord,
    at: string,
    prepared?: unknown,
  ): Promise<TaskRecord | undefined>;
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
  /** Pending tasks whose deadline (Cancel-After) is at `at` or earlier, at most `limit`, soonest first. */
  pastDeadline(at: string, limit: number): Promise<string[]>;
  /**
   * Replaces a settled task by `scrubbedTask(task, at)` in one write (metadata filters no longer
   * find it); answers it. A scrubbed task answers as it is (nothing written); a pending task
   * answers as it is, unchanged (cancel it first); undefined for no such task.
   */
  removeData(id: string, at: string): Promise<TaskRecord | undefined>;
  /** The account's settled tasks that still hold data and settled (updatedAt) before `before`: at most `limit`, oldest first. */
  withDataSettledBefore(accountId: string, before: string, limit: number): Promise<TaskRecord[]>;
  /** Ids of the account's settled tasks (data removed or not) that settled before `before`: at most `limit`, oldest first. */
  settledBefore(accountId: string, before: string, limit: number): Promise<string[]>;
  /**
   * Deletes the records of settled tasks whose data is removed, in one write, adding their cost to
   * their account's `removedCharges` (so the ledger still adds up); pending tasks and tasks still
   * holding data are left. Answers how many were deleted.
   */
  purge(ids: readonly string[]): Promise<number>;
  /** Bytes of the files the account's tasks hold (items' `files` of tasks whose data is not removed). */
  storedBytes(accountId: string): Promise<number>;
}

/** Uploaded images and who owns them; a record with `deletedAt` is a deleted upload's tombstone. */
export interface UploadRepo {
  /** Inserts or replaces (a tombstone replaces its upload). */
  put(upload: UploadRecord): Promise<void>;
  get(id: string): Promise<UploadRecord | undefined>;
  /** False when there was no such record. */
  delete(id: string): Promise<boolean>;
  /** The account's uploads (tombstones included) created before `before`, at most `limit`, oldest first. */
  createdBefore(accountId: string, before: string, limit: number): Promise<UploadRecord[]>;
  /** How many uploads the account holds, and their bytes (tombstones left out). */
  usage(accountId: string): Promise<{ count: number; bytes: number }>;
  /** Every upload, tombstones included (doctor's inventory). */
  all(): Promise<Iterable<UploadRecord>>;
}

/** The capability of a store several processes share: how they tell each other, and how they take tasks. */
export interface SharedQueueStore {
  readonly signals: StoreSignals;
  readonly leases: LeaseRepo;
  /** Fleet-wide slots of keys with a maxConcurrent. */
  readonly keySlots: KeySlotRepo;
  /** The lanes as the fleet sees them (imgtask queues, metrics). */
  readonly lanes: FleetLaneRepo;
}

/** One lane across the fleet: what waits in the store, and what the working processes report. */
export interface FleetLaneFigures {
  lane: string;
  /** Pending items of the lane's pending tasks (waiting, queued in a process, or running). */
  unfinishedItems: number;
  /** Items running in the processes that reported in the last few seconds, and their slots. */
  running: number;
  capacity: number;
  /** Creation time of the oldest pending task no process has claimed; null when none waits unclaimed. */
  waitingSince: string | null;
  /** Items waiting per account: of its tasks no process has claimed yet, and queued in the processes (as they last reported); accounts with none left out. */
  accounts: { account: string; items: number }[];
}

/** What every working process of a fleet reports of its lanes, and the fleet's figures per lane. */
export interface FleetLaneRepo {
  /** This process's lanes as they are now (replacing its last report). */
  report(
    worker: string,
    lanes: readonly {
      lane: string;
      running: number;
      capacity: number;
      accounts: readonly { account: string; queued: number }[];
    }[],
  ): Promise<void>;
  /** This process stopped: its report goes. */
  forget(worker: string): Promise<void>;
  /** The fleet's figures, leaving out what `exceptWorker` reported (a working process adds its own lanes as they are now). */
  figures(exceptWorker?: string): Promise<FleetLaneFigures[]>;
}

/**
 * Slots of an API key's maxConcurrent shared by every process (PostgreSQL: a session advisory
 * lock per slot, so a process that dies gives its slots back with its connection).
 */
export interface KeySlotRepo {
  /** Takes one of `key`'s `cap` slots: answers how to give it back (resolved once given back), or null when all are taken. */
  acquire(key: string, cap: number): Promise<(() => Promise<void>) | null>;
}

/** How many tasks a claim takes from one lane (null: the tasks created before lanes were kept). */
export interface ClaimWant {
  lane: string | null;
  limit: number;
  /** Only tasks of at least this priority (a full process taking a raised priority anyway). */
  minPriority?: number;
}

/** Task leases: how processes sharing a store take its pending tasks without two running the same one. */
export interface LeaseRepo {
  /**
   * Leases pending tasks to `workerId` for `leaseMs`, up to each want's `limit` in its lane, in
   * the lane's fair order (priority, the start tag given at create, age); a want of lane null
   * takes tasks created before lanes were kept, oldest first. Only tasks with no lease or whose
   * lease expired are taken; two callers at once never get the same task. Tasks of a key whose
   * maxConcurrent is already taken by leased tasks are passed over.
   */
  claim(workerId: string, wants: readonly ClaimWant[], leaseMs: number): Promise<TaskRecord[]>;
  /** The lanes with pending tasks, and whether tasks created before lanes were kept are pending (`legacy`). */
  pendingLanes(): Promise<{ lanes: string[]; legacy: boolean }>;
  /** Extends the leases `workerId` still holds among `ids` by `leaseMs` from now; answers those ids (a lease lost or a task settled is left out). */
  renew(workerId: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
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
  /** Takes the first free one of `keys` in one round trip; answers it, or null when all are held (by anyone). */
  tryLockAny(keys: readonly number[]): Promise<number | null>;
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
  /** Applies `changes` to the webhook as stored, in one write; undefined when it is gone. */
  update(id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined>;
  /**
   * Counts a delivery attempt in the webhook's health as stored, in one write (never undoing
   * another write, never bringing back a deleted webhook). Returns the record when this attempt
   * disabled the webhook, else undefined.
   */
  recordHealth(id: string, health: WebhookHealth): Promise<WebhookRecord | undefined>;
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
  recordAttempt(
    id: string,
    attempt: DeliveryAttempt,
    status: DeliveryRecord['status'],
    nextAttemptAt: string | null,
  ): Promise<DeliveryRecord>;
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
  /** Every delivery of one event (a task's: one per endpoint it went to), in id order. */
  deliveriesOfEvent(eventId: string): Promise<DeliveryRecord[]>;
  deliveryCounts(): Promise<{ pending: number; delivered: number; failed: number }>;
  listAll(): Promise<WebhookRecord[]>;
  /** Replaces a recorded event's payload (a deleted task's: its scrubbed envelope); pending deliveries then send that. False when there is no such event. */
  replaceEventPayload(eventId: string, payload: unknown): Promise<boolean>;
  /**
   * Deletes deliveries no longer pending whose last change (updatedAt) is before `before`, at most
   * `limit`, and the events left with no delivery; answers how many deliveries were deleted.
   * `accountId`: only that account's (an erase), whatever their age or status.
   */
  purgeDeliveries(before: string, limit: number, accountId?: string): Promise<number>;
}

export interface DestinationRepo {
  /** Inserts or replaces; DESTINATION_NAME_TAKEN when another destination of the account has the name. */
  put(destination: DestinationRecord): Promise<DestinationRecord>;
  /** Replaces a stored destination (as put does); undefined, nothing written, when it is gone (a change racing a delete never brings it back). */
  replace(destination: DestinationRecord): Promise<DestinationRecord | undefined>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<DestinationRecord | undefined>;
  getByName(accountId: string, name: string): Promise<DestinationRecord | undefined>;
  listByAccount(accountId: string): Promise<DestinationRecord[]>;
}

/** One settled task as usage counts it: what it was charged, when it settled, and what it ran on. */
export interface UsageEntry {
  taskId: string;
  /** Settlement time (the task's `updatedAt` once settled). */
  settledAt: string;
  apiKeyId: string | null;
  type: string;
  /** The model it ran on (`prepared.model` of image.generate and video.generate); null for other types, or a task that never got that far. */
  model: string | null;
  /** Charged, micro-USD. */
  cost: number;
  /** Its successful items (those charged). */
  items: number;
}

export interface BillingRepo {
  /** The account's tasks settled at `from` <= time < `to` (ISO timestamps), by task id. */
  usage(accountId: string, from: string, to: string): Promise<UsageEntry[]>;
  /**
   * As of one moment: the sum charged to the account by tasks settled in a UTC calendar month
   * (`2026-11`), and its balance; undefined when there is no such account.
   */
  monthBudget(accountId: string, month: string): Promise<{ charged: number; balance: number } | undefined>;
  /**
   * Records a threshold's mark with its event and the event's deliveries, all in one write;
   * false, with nothing written, when the mark exists already: the mark decides, across
   * processes, who sends the event.
   */
  recordAlert(alert: BillingAlertRecord, event: EventRecord, deliveries: DeliveryRecord[]): Promise<boolean>;
  getAlert(id: string): Promise<BillingAlertRecord | undefined>;
}

/** What `IdempotencyRepo.claim` finds: the claim is this request's, or the record already there. */
export type IdempotencyClaimResult = { claimed: true } | { claimed: false; record: IdempotencyRecord };

/**
 * Idempotency-Key records, one per account and key. A record is live until its `expiresAt`:
 * an in-flight claim (`claim` set) until it is renewed or answered, an answer for 24 h. `now` is
 * the caller's clock (ISO time), so tests can move it.
 */
export interface IdempotencyRepo {
  /** Writes `record` (a claim) unless a live record holds its id; atomic across processes. */
  claim(record: IdempotencyRecord, now: string): Promise<IdempotencyClaimResult>;
  /** Moves a claim's expiry on; false when the claim is no longer held (it lapsed and was taken). */
  renew(id: string, claim: string, expiresAt: string): Promise<boolean>;
  /** Replaces the claim `claim` with the answered record; false, with nothing written, when the claim is no longer held. */
  complete(record: IdempotencyRecord, claim: string): Promise<boolean>;
  /** Drops the claim `claim` (an answer that is not kept), so the key can be used again. */
  release(id: string, claim: string): Promise<void>;
  /** The live record of `id` at `now`. */
  get(id: string, now: string): Promise<IdempotencyRecord | undefined>;
  /** Deletes every record expired at `now`. */
  purgeExpired(now: string): Promise<void>;
  /** Deletes every record of the account (an erase); answers how many. */
  deleteByAccount(accountId: string): Promise<number>;
}

/**
 * Web console sign-in links and sessions. Times are the caller's clock (ISO). A link is used at
 * most once, across processes: `consume` is the one atomic step that decides.
 */
export interface ConsoleSessionRepo {
  put(record: ConsoleSessionRecord): Promise<void>;
  /**
   * Marks the link with this hash used at `now` and answers it (with `usedAt`); undefined, with
   * nothing written, when there is no such link, or it is used, revoked or expired at `now`.
   */
  consume(hash: string, now: string): Promise<ConsoleSessionRecord | undefined>;
  /** The record with this hash, whatever its state (the caller checks expiry and revocation). */
  getByHash(hash: string): Promise<ConsoleSessionRecord | undefined>;
  /** Sessions and links not expired at `now` (revoked and used ones included), oldest first. */
  list(now: string): Promise<ConsoleSessionRecord[]>;
  /** Revokes a session or link; undefined when unknown or already revoked. */
  revoke(id: string, at: string): Promise<ConsoleSessionRecord | undefined>;
  /** Deletes every record expired at `now`; answers how many. */
  purgeExpired(now: string): Promise<number>;
  /** Deletes every record of the account (an erase); answers how many. */
  deleteByAccount(accountId: string): Promise<number>;
}

/** Lanes an operator paused (imgtask queues pause): their queued work waits, fleet-wide, until resumed. */
export interface LanePauseRepo {
  list(): Promise<LanePauseRecord[]>;
  /** Pauses a lane; a lane paused already keeps its first time. */
  pause(record: LanePauseRecord): Promise<LanePauseRecord>;
  /** False when the lane was not paused. */
  resume(lane: string): Promise<boolean>;
}
