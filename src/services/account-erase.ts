import { AppError } from '../domain/errors.js';
import { isoTime } from '../domain/time.js';
import type { AccountRecord, TaskRecord, UploadRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { Clock } from './ports.js';

/** Records read and removed at a time. */
const BATCH = 200;
/** Later than any record's time: "everything the account holds". */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/** What one erase removed (a resumed one: what was left to remove). */
export interface EraseReport {
  /** The account's id: its name from now on. */
  id: string;
  /** The name it had ("" when a resumed erase had already replaced it). */
  name: string;
  erasedAt: string;
  keys: number;
  cancelled: number;
  tasks: number;
  uploads: number;
  webhooks: number;
  destinations: number;
  consoleSessions: number;
  idempotencyRecords: number;
  deliveries: number;
}

export interface AccountEraseDeps {
  store: Pick<
    Store,
    | 'accounts'
    | 'apiKeys'
    | 'tasks'
    | 'uploads'
    | 'webhooks'
    | 'destinations'
    | 'consoleSessions'
    | 'idempotency'
    | 'compact'
  >;
  clock: Clock;
  /** The one way a task's or an upload's data is removed (services/data-removal.ts). */
  removal: {
    removeTaskData(task: TaskRecord): Promise<unknown>;
    removeUploadData(upload: UploadRecord): Promise<void>;
    /** Cancels a pending task (owner null: any account's), then removes its data. */
    removeTask(owner: null, taskId: string): Promise<unknown>;
  };
  log: (message: string) => void;
}

/** Erasing accounts, and finishing the erasures a crash left unfinished. */
export interface AccountErase {
  /**
   * Erases an account, named by id or name; an account erased already answers a report of
   * nothing removed. Answers what it removed.
   */
  erase(ref: string): Promise<EraseReport>;
  /** Finishes every erase a crash interrupted (at start, and by the sweep); answers their reports. */
  resumeAll(): Promise<EraseReport[]>;
}

/** Lets other work run between batches. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Erasing an account (imgtask accounts erase; docs/data-lifecycle.md#erasing-an-account):
 * `erasingSince` is set first, so an erase a crash interrupted is finished by the next start or
 * sweep (`resumeAll`); an account being erased takes no credential or task (services/auth.ts,
 * accounts.find). Every step may run again. The ledger keeps amounts and ids: task records stay,
 * scrubbed; the account's name becomes its id. Last, the store compacts, so no old journal or
 * snapshot keeps what was removed.
 */
export function createAccountErase(deps: AccountEraseDeps): AccountErase {
  const { store, clock, removal } = deps;
  const now = () => isoTime(clock.now());
  /** Erases under way in this process, by account: a second call joins the first. */
  const running = new Map<string, Promise<EraseReport>>();

  /** Repeats `step` (one batch: how many it read) until one comes back short. */
  async function inBatches(step: () => Promise<number>): Promise<void> {
    while ((await step()) >= BATCH) await yieldTurn();
  }

  /**
   * Cancels the account's pending tasks and removes their data, then every settled task's; answers whether a pending
   * one was found.
   */
  async function removeTasks(accountId: string, report: EraseReport): Promise<boolean> {
    let found = false;
    for (const task of await store.tasks.listPending()) {
      if (task.accountId !== accountId) continue;
      // Cancelled through the one settlement (its reserve released), then its data removed.
      await removal.removeTask(null, task.id);
      report.cancelled++;
      found = true;
    }
    await inBatches(async () => {
      const tasks = await store.tasks.withDataSettledBefore(accountId, END_OF_TIME, BATCH);
      for (const task of tasks) await removal.removeTaskData(task);
      report.tasks += tasks.length;
      if (tasks.length) deps.log(`erase: account ${accountId}: ${report.tasks} task(s) scrubbed so far`);
      return tasks.length;
    });
    return found;
  }

  async function run(account: AccountRecord): Promise<EraseReport> {
    const started = account.erasingSince ?? now();
    if (!account.erasingSince) await store.accounts.update(account.id, { erasingSince: started }, started);
    deps.log(
      `erase: account ${account.id} (${account.name}): started${account.erasingSince ? ` (resuming the erase begun ${account.erasingSince})` : ''}`,
    );
    const report: EraseReport = { ...emptyReport(account.id), name: account.name === account.id ? '' : account.name };
    // Credentials first: nothing new is made while the rest goes. A key's name is a client's text: it goes too.
    for (const key of await store.apiKeys.listLive(account.id)) {
      if (await store.apiKeys.revoke(key.id, now())) report.keys++;
    }
    // Revoked ones too, those revoked or rotated away before the erase.
    await store.apiKeys.forgetNames(account.id);
    report.consoleSessions = await store.consoleSessions.deleteByAccount(account.id);
    for (const webhook of await store.webhooks.listByAccount(account.id)) {
      await store.webhooks.delete(webhook.id);
      report.webhooks++;
    }
    for (const destination of await store.destinations.listByAccount(account.id)) {
      await store.destinations.delete(destination.id);
      report.destinations++;
    }
    report.idempotencyRecords = await store.idempotency.deleteByAccount(account.id);
    await inBatches(async () => {
      const uploads = await store.uploads.createdBefore(account.id, END_OF_TIME, BATCH);
      for (const upload of uploads) await removal.removeUploadData(upload);
      report.uploads += uploads.length;
      return uploads.length;
    });
    // Again while a pass finds a pending task: one whose create was under way as the keys went.
    while (await removeTasks(account.id, report)) {}
    // Its events and delivery logs (webhook payloads), whatever their state.
    await inBatches(async () => {
      const removed = await store.webhooks.purgeDeliveries(END_OF_TIME, BATCH, account.id);
      report.deliveries += removed;
      return removed;
    });
    await store.accounts.update(account.id, { name: account.id }, now());
    // The file store keeps removed records in its journal and older snapshots until it compacts:
    // before the erase is marked done, so a crash or a failed compaction is finished (compacted
    // again) by the next start or sweep.
    await store.compact?.();
    report.erasedAt = now();
    await store.accounts.update(account.id, { erasedAt: report.erasedAt, erasingSince: null }, report.erasedAt);
    deps.log(`erase: account ${account.id}: erased (${summary(report)})`);
    return report;
  }

  /** Erases one account once at a time in this process. */
  function erase(account: AccountRecord): Promise<EraseReport> {
    let pending = running.get(account.id);
    if (!pending) {
      pending = run(account).finally(() => running.delete(account.id));
      running.set(account.id, pending);
    }
    return pending;
  }

  return {
    async erase(ref: string): Promise<EraseReport> {
      const account = ref.startsWith('acc_') ? await store.accounts.get(ref) : await store.accounts.getByName(ref);
      if (!account) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
      if (account.erasedAt) {
        return { ...emptyReport(account.id), erasedAt: account.erasedAt };
      }
      return erase(account);
    },

    async resumeAll(): Promise<EraseReport[]> {
      const reports: EraseReport[] = [];
      for (const account of await store.accounts.list()) {
        if (account.erasingSince && !account.erasedAt) reports.push(await erase(account));
      }
      return reports;
    },
  };
}

const emptyReport = (id: string): EraseReport => ({
  id,
  name: '',
  erasedAt: '',
  keys: 0,
  cancelled: 0,
  tasks: 0,
  uploads: 0,
  webhooks: 0,
  destinations: 0,
  consoleSessions: 0,
  idempotencyRecords: 0,
  deliveries: 0,
});

/** What an erase removed, in words (the CLI's line and the log's). */
export function summary(report: EraseReport): string {
  const parts: [number, string][] = [
    [report.keys, 'key(s) revoked'],
    [report.cancelled, 'pending task(s) cancelled'],
    [report.tasks, 'task(s) scrubbed'],
    [report.uploads, 'upload(s)'],
    [report.webhooks, 'webhook(s)'],
    [report.destinations, 'destination(s)'],
    [report.consoleSessions, 'console session(s)'],
    [report.idempotencyRecords, 'idempotency record(s)'],
    [report.deliveries, 'webhook delivery log(s)'],
  ];
  const said = parts.filter(([count]) => count > 0).map(([count, words]) => `${count} ${words}`);
  return said.length ? said.join(', ') : 'nothing left to remove';
}
