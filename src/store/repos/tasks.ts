import type { Period } from '../../domain/periods.js';
import type { ItemRecord, TaskRecord, TaskSettlement } from '../records/tasks.js';

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
  /**
   * The lane the task's items run in: where a shared store queues it for claims (docs/scheduling.md). Other stores
   * ignore it.
   */
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
  /**
   * The account's settled tasks that still hold data and settled (updatedAt) before `before`: at most `limit`, oldest
   * first.
   */
  withDataSettledBefore(accountId: string, before: string, limit: number): Promise<TaskRecord[]>;
  /**
   * Ids of the account's settled tasks (data removed or not) that settled before `before`: at most `limit`, oldest
   * first.
   */
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
