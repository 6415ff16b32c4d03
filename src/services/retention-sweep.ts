import type { ConfigSource } from '../config/source.js';
import { effectiveRetention, RETENTION_KINDS, type RetentionKind, retentionMs } from '../domain/retention.js';
import { isoTime } from '../domain/time.js';
import type { AccountRecord, TaskRecord, UploadRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { Clock } from './ports.js';

/** Records read and removed at a time: a batch is a few store writes, then the event loop gets a turn. */
const BATCH = 200;
/** Removals under way at once within a batch (bounded: a PostgreSQL pool has a few connections). */
const PARALLEL = 25;

/**
 * What one sweep removed, by kind: tasks whose outputs and text went, uploads, task records, delivery logs, expired
 * console sessions.
 */
export type RetentionCounts = Record<RetentionKind, number>;

export interface RetentionDeps {
  store: Pick<Store, 'accounts' | 'tasks' | 'uploads' | 'webhooks' | 'consoleSessions'>;
  config: Pick<ConfigSource, 'current'>;
  clock: Clock;
  /** The one way a task's or an upload's data is removed (services/data-removal.ts). */
  removal: {
    removeTaskData(task: TaskRecord): Promise<unknown>;
    removeUploadData(upload: UploadRecord): Promise<void>;
  };
  log: (message: string) => void;
  /** Told how many of a kind one sweep removed (the metric), when it removed some. */
  removed?: (kind: RetentionKind, count: number) => void;
  /** Records per batch. @default 200 */
  batchSize?: number;
}

/** The retention sweep (imgtask sweep, and the sweep of a running service). */
export interface Retention {
  /** Removes what has aged out now; answers what it removed, by kind. */
  sweep(): Promise<RetentionCounts>;
}

/** Lets other work run between batches (a create burst beside a long sweep). */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Removes what has aged out (docs/data-lifecycle.md#retention), account by account with each
 * one's effective retention: outputs of tasks settled before the cutoff, uploads, task records
 * themselves (their data first), then delivery logs and expired console sessions. In batches,
 * yielding between them. One sweep at a time in this process: a sweep asked for while one runs
 * answers that one's counts. Where it runs in a fleet is the intake's to decide (one process, under
 * the sweep lock).
 */
export function createRetention(deps: RetentionDeps): Retention {
  const { store, clock } = deps;
  const batch = deps.batchSize ?? BATCH;
  let running: Promise<RetentionCounts> | undefined;

  /**
   * Repeats `step` (one batch: how many it handled, how many it removed) until a batch comes back short or removes
   * nothing.
   */
  async function inBatches(step: () => Promise<{ read: number; removed: number }>): Promise<number> {
    let total = 0;
    for (;;) {
      const { read, removed } = await step();
      total += removed;
      // A short batch was the last; a full one that removed nothing would come back the same (a failure: logged,
      // retried next sweep).
      if (read < batch || removed === 0) return total;
      await yieldTurn();
    }
  }

  /**
   * Each record's removal on its own: one that fails is logged and left for the next sweep, the
   * others go on. Up to PARALLEL at once, so their store writes share a group commit: removals one
   * after another would each take an fsync turn of their own, and creates beside a long sweep
   * would wait behind one almost every time (their p99 tripled in bench:retention).
   */
  async function eachRemoved<T>(
    records: readonly T[],
    what: string,
    remove: (record: T) => Promise<unknown>,
  ): Promise<number> {
    let removed = 0;
    for (let start = 0; start < records.length; start += PARALLEL) {
      const outcomes = await Promise.allSettled(records.slice(start, start + PARALLEL).map((record) => remove(record)));
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') removed++;
        else
          deps.log(
            `retention: could not remove ${what} (${(outcome.reason as Error).message}); the next sweep tries again`,
          );
      }
    }
    return removed;
  }

  const outputsOf = (account: AccountRecord, before: string) =>
    inBatches(async () => {
      const tasks = await store.tasks.withDataSettledBefore(account.id, before, batch);
      return {
        read: tasks.length,
        removed: await eachRemoved(tasks, 'the outputs of a task', (task) => deps.removal.removeTaskData(task)),
      };
    });

  const uploadsOf = (account: AccountRecord, before: string) =>
    inBatches(async () => {
      const uploads = await store.uploads.createdBefore(account.id, before, batch);
      return {
        read: uploads.length,
        removed: await eachRemoved(uploads, 'an upload', (upload) => deps.removal.removeUploadData(upload)),
      };
    });

  /**
   * Task records settled before `before`: any still holding data lose it first, then the records go (their charges kept
   * by the ledger).
   */
  const tasksOf = (account: AccountRecord, before: string) =>
    inBatches(async () => {
      const ids = await store.tasks.settledBefore(account.id, before, batch);
      const holding: TaskRecord[] = [];
      for (const id of ids) {
        const task = await store.tasks.get(id);
        if (task && task.dataRemovedAt === undefined) holding.push(task);
      }
      await eachRemoved(holding, 'the data of a task', (task) => deps.removal.removeTaskData(task));
      return { read: ids.length, removed: ids.length ? await store.tasks.purge(ids) : 0 };
    });

  /** A cutoff `setting` before now, or null when the setting keeps things forever. */
  const cutoff = (setting: string, now: number): string | null => {
    const ms = retentionMs(setting);
    return ms === null ? null : isoTime(now - ms);
  };

  async function run(): Promise<RetentionCounts> {
    const settings = deps.config.current().retention;
    const now = clock.now();
    const counts: RetentionCounts = { outputs: 0, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 };
    for (const account of await store.accounts.list()) {
      const own = effectiveRetention(account.retention, settings);
      const outputs = cutoff(own.outputs, now);
      if (outputs) counts.outputs += await outputsOf(account, outputs);
      const uploads = cutoff(own.uploads, now);
      if (uploads) counts.uploads += await uploadsOf(account, uploads);
      const tasks = cutoff(own.tasks, now);
      if (tasks) counts.tasks += await tasksOf(account, tasks);
    }
    const deliveries = cutoff(settings.deliveries, now);
    if (deliveries)
      counts.deliveries = await inBatches(async () => {
        const removed = await store.webhooks.purgeDeliveries(deliveries, batch);
        return { read: removed, removed };
      });
    const sessions = cutoff(settings.consoleSessions, now);
    if (sessions) counts.consoleSessions = await store.consoleSessions.purgeExpired(sessions);
    report(counts);
    return counts;
  }

  function report(counts: RetentionCounts): void {
    const words: Record<RetentionKind, string> = {
      outputs: 'removed the outputs and text of {n} task(s)',
      uploads: 'removed {n} upload(s)',
      tasks: 'removed {n} task record(s)',
      deliveries: 'removed {n} webhook delivery log(s)',
      consoleSessions: 'removed {n} expired console session(s) and sign-in link(s)',
    };
    for (const kind of RETENTION_KINDS) {
      if (counts[kind] === 0) continue;
      deps.log(`retention: ${words[kind].replace('{n}', String(counts[kind]))} (retention.${kind})`);
      deps.removed?.(kind, counts[kind]);
    }
  }

  return {
    sweep(): Promise<RetentionCounts> {
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
