import type { AccountRecord, CreditRecord } from '../records/accounts.js';
import { applyAccountChanges } from '../records/accounts.js';
import type { ApiKeyRecord } from '../records/api-keys.js';
import { applyKeyChanges } from '../records/api-keys.js';
import type { BillingAlertRecord } from '../records/billing-alerts.js';
import type { ConsoleSessionRecord } from '../records/console-sessions.js';
import type { DestinationRecord } from '../records/destinations.js';
import type { IdempotencyRecord } from '../records/idempotency.js';
import type { LanePauseRecord } from '../records/lane-pauses.js';
import type { SecretRecord } from '../records/secrets.js';
import type { TaskRecord } from '../records/tasks.js';
import { NO_EVENT, preparedOnce, scrubbedTask, settledTask } from '../records/tasks.js';
import type { UploadRecord } from '../records/uploads.js';
import type { DeliveryRecord, EventRecord, WebhookRecord } from '../records/webhooks.js';
import { Collection } from './collection.js';
import { GroupIndex, OrderedGroupIndex, SetIndex, UniqueIndex } from './indexes/by-key.js';
import { DueIndex } from './indexes/due-index.js';
import { TimeOrderIndex } from './indexes/sorted-keys.js';
import { CountIndex, MoneyIndex, StoredBytesIndex, UsageIndex } from './indexes/sums.js';
import type { JournalOp, JournalOps } from './journal-ops.js';
import { MonthlyChargeIndex } from './repos/billing-alerts-charges.js';

/** All state, in memory, with its indexes. Changed only by `applyOp`. */
export class State {
  readonly accountByName = new UniqueIndex<AccountRecord>((account) => account.name);
  readonly accounts = new Collection<AccountRecord>('accounts', [this.accountByName]);

  readonly creditsByAccount = new GroupIndex<CreditRecord>((credit) => credit.accountId);
  readonly credits = new Collection<CreditRecord>('credits', [this.creditsByAccount]);

  readonly liveKeyByHash = new UniqueIndex<ApiKeyRecord>((key) => (key.revokedAt ? undefined : key.hash));
  readonly liveKeysByAccount = new GroupIndex<ApiKeyRecord>((key) => (key.revokedAt ? undefined : key.accountId));
  readonly apiKeys = new Collection<ApiKeyRecord>('apiKeys', [this.liveKeyByHash, this.liveKeysByAccount]);

  readonly tasksByAccount = new OrderedGroupIndex<TaskRecord>((task) => task.accountId);
  readonly pendingTasks = new SetIndex<TaskRecord>((task) => task.status === 'pending');
  readonly money = new MoneyIndex();
  /** Settled tasks whose event is not recorded yet: a crash fell between the two. */
  readonly settledWithoutEvent = new SetIndex<TaskRecord>((task) => task.status !== 'pending' && !task.eventId);
  readonly tasksByStatus = new CountIndex<TaskRecord>((task) => task.status);
  /** Tasks by `type status` (the /metrics gauge), kept in step like the status counts. */
  readonly tasksByTypeStatus = new CountIndex<TaskRecord>((task) => `${task.type} ${task.status}`);
  /** Charges per account and month of settlement (budget alerts). */
  readonly monthlyCharges = new MonthlyChargeIndex();
  /** Settled tasks still holding data, per account, by settlement time (retention of outputs). */
  readonly settledWithData = new TimeOrderIndex<TaskRecord>((task) =>
    task.status !== 'pending' && !task.dataRemovedAt ? { group: task.accountId, time: task.updatedAt } : undefined,
  );
  /**
   * Settled tasks whose data is removed, per account, by settlement time: with the above, every settled task once
   * (retention of records).
   */
  readonly settledDataRemoved = new TimeOrderIndex<TaskRecord>((task) =>
    task.status !== 'pending' && task.dataRemovedAt ? { group: task.accountId, time: task.updatedAt } : undefined,
  );
  readonly storedBytes = new StoredBytesIndex();
  readonly tasks = new Collection<TaskRecord>('tasks', [
    this.tasksByAccount,
    this.pendingTasks,
    this.money,
    this.settledWithoutEvent,
    this.tasksByStatus,
    this.tasksByTypeStatus,
    this.monthlyCharges,
    this.settledWithData,
    this.settledDataRemoved,
    this.storedBytes,
  ]);

  readonly webhooksByAccount = new GroupIndex<WebhookRecord>((webhook) => webhook.accountId);
  readonly webhooks = new Collection<WebhookRecord>('webhooks', [this.webhooksByAccount]);
  readonly eventsByAccount = new GroupIndex<EventRecord>((event) => event.accountId);
  readonly events = new Collection<EventRecord>('events', [this.eventsByAccount]);
  readonly deliveriesByWebhook = new OrderedGroupIndex<DeliveryRecord>((delivery) => delivery.webhookId ?? undefined);
  /** A task's event and where it went (the console's task inspector). */
  readonly deliveriesByEvent = new OrderedGroupIndex<DeliveryRecord>((delivery) => delivery.eventId);
  readonly pendingDeliveries = new SetIndex<DeliveryRecord>((delivery) => delivery.status === 'pending');
  readonly deliveriesByStatus = new CountIndex<DeliveryRecord>((delivery) => delivery.status);
  readonly deliveriesByDue = new DueIndex();
  readonly deliveriesByAccount = new GroupIndex<DeliveryRecord>((delivery) => delivery.accountId);
  /** Deliveries no longer pending, by their last change (retention of delivery logs). */
  readonly settledDeliveries = new TimeOrderIndex<DeliveryRecord>((delivery) =>
    delivery.status !== 'pending' ? { group: '', time: delivery.updatedAt } : undefined,
  );
  readonly deliveries = new Collection<DeliveryRecord>('deliveries', [
    this.deliveriesByWebhook,
    this.deliveriesByEvent,
    this.pendingDeliveries,
    this.deliveriesByStatus,
    this.deliveriesByDue,
    this.deliveriesByAccount,
    this.settledDeliveries,
  ]);

  readonly destinationByName = new UniqueIndex<DestinationRecord>((d) => `${d.accountId}/${d.name}`);
  readonly destinationsByAccount = new GroupIndex<DestinationRecord>((d) => d.accountId);
  readonly destinations = new Collection<DestinationRecord>('destinations', [
    this.destinationByName,
    this.destinationsByAccount,
  ]);

  readonly secrets = new Collection<SecretRecord>('secrets');

  /** Uploaded images, per account by creation time (retention), with each account's count and bytes. */
  readonly uploadsByTime = new TimeOrderIndex<UploadRecord>((upload) => ({
    group: upload.accountId,
    time: upload.createdAt,
  }));
  readonly uploadUsage = new UsageIndex<UploadRecord>((upload) => (upload.deletedAt ? undefined : upload.accountId));
  readonly uploads = new Collection<UploadRecord>('uploads', [this.uploadsByTime, this.uploadUsage]);

  /** Budget thresholds reached, by `<scopeId>|<period>|<threshold>`. Not in dumps. */
  readonly billingAlerts = new Collection<BillingAlertRecord>('billingAlerts');

  /** Idempotency-Key answers, by `<accountId>:<key>`. Not in dumps. */
  readonly idempotencyByAccount = new GroupIndex<IdempotencyRecord>((record) => record.accountId);
  readonly idempotencyKeys = new Collection<IdempotencyRecord>('idempotencyKeys', [this.idempotencyByAccount]);

  /** Web console sign-in links and sessions, by id; found by the hash of their secret. Not in dumps. */
  readonly consoleSessionByHash = new UniqueIndex<ConsoleSessionRecord>((record) => record.hash);
  readonly consoleSessionsByAccount = new GroupIndex<ConsoleSessionRecord>((record) => record.accountId ?? undefined);
  readonly consoleSessions = new Collection<ConsoleSessionRecord>('consoleSessions', [
    this.consoleSessionByHash,
    this.consoleSessionsByAccount,
  ]);

  /** Lanes an operator paused, by lane name. Not in dumps. */
  readonly lanePauses = new Collection<LanePauseRecord>('lanePauses');

  /** Every collection, by the name it has in snapshots. */
  collections(): Collection<{ id: string }>[] {
    return [
      this.accounts,
      this.credits,
      this.apiKeys,
      this.tasks,
      this.secrets,
      this.webhooks,
      this.events,
      this.deliveries,
      this.destinations,
      this.uploads,
      this.billingAlerts,
      this.idempotencyKeys,
      this.consoleSessions,
      this.lanePauses,
    ] as unknown as Collection<{ id: string }>[];
  }
}

/**
 * How each journaled op changes the state. Handlers must be deterministic and must not
 * throw for an op that passed its repo's checks: replay runs the very same code.
 */
const HANDLERS: { [Op in JournalOp]: (state: State, payload: JournalOps[Op]) => void } = {
  'account.create': (state, account) => state.accounts.put(account),
  'account.credit': (state, credit) => {
    const account = state.accounts.get(credit.accountId)!;
    state.credits.put(credit);
    state.accounts.put({ ...account, balance: account.balance + credit.amount, updatedAt: credit.createdAt });
  },
  'account.update': (state, { id, changes, at }) =>
    state.accounts.put(applyAccountChanges(state.accounts.get(id)!, changes, at)),
  'lane.pause': (state, pause) => state.lanePauses.put(pause),
  'lane.resume': (state, { id }) => state.lanePauses.delete(id),
  'apiKey.create': (state, key) => state.apiKeys.put(key),
  'apiKey.revoke': (state, { id, at }) => {
    const key = state.apiKeys.get(id)!;
    state.apiKeys.put({ ...key, revokedAt: at });
  },
  'apiKey.update': (state, { id, changes }) => state.apiKeys.put(applyKeyChanges(state.apiKeys.get(id)!, changes)),
  'apiKey.touch': (state, { id, at }) => {
    const key = state.apiKeys.get(id);
    if (key) state.apiKeys.put({ ...key, lastUsedAt: at });
  },
  'apiKey.rotate': (state, { id, next, revokedAt, expiresAt }) => {
    const old = state.apiKeys.get(id)!;
    state.apiKeys.put(revokedAt ? { ...old, revokedAt } : { ...old, expiresAt });
    state.apiKeys.put(next);
  },
  'secret.put': (state, secret) => state.secrets.put(secret),
  'secret.delete': (state, { id }) => state.secrets.delete(id),
  'webhook.put': (state, webhook) => state.webhooks.put(webhook),
  'webhook.delete': (state, { id }) => state.webhooks.delete(id),
  // One record per event: the event, every delivery it fans out to, and the task's mark.
  'event.record': (state, { event, deliveries }) => {
    state.events.put(event);
    for (const delivery of deliveries) state.deliveries.put(delivery);
    const task = event.taskId ? state.tasks.get(event.taskId) : undefined;
    if (task) state.tasks.put({ ...task, eventId: event.id });
  },
  // A settled task whose event no endpoint wants: only the mark, so recovery knows it was handled.
  'task.noEvent': (state, { id }) => {
    const task = state.tasks.get(id);
    if (task) state.tasks.put({ ...task, eventId: NO_EVENT });
  },
  'delivery.attempt': (state, a) => {
    const delivery = state.deliveries.get(a.id)!;
    state.deliveries.put({
      ...delivery,
      status: a.status,
      attempts: [...delivery.attempts, a.attempt],
      nextAttemptAt: a.nextAttemptAt,
      updatedAt: a.attempt.at,
    });
  },
  'event.payload': (state, { id, payload }) => {
    const event = state.events.get(id);
    if (event) state.events.put({ ...event, payload });
  },
  // The deliveries named, then those of the events named that no delivery is left of.
  'delivery.purge': (state, { ids, eventIds }) => {
    for (const id of ids) state.deliveries.delete(id);
    for (const id of eventIds) if (state.deliveriesByEvent.ids(id).length === 0) state.events.delete(id);
  },
  'delivery.redeliver': (state, { id, at }) => {
    const delivery = state.deliveries.get(id)!;
    state.deliveries.put({ ...delivery, status: 'pending', nextAttemptAt: at, updatedAt: at });
  },
  'destination.put': (state, destination) => state.destinations.put(destination),
  'destination.delete': (state, { id }) => state.destinations.delete(id),
  'task.create': (state, task) => state.tasks.put(task),
  // Only the id and time are journaled: the record is scrubbed here, so no copy of its data is written.
  'task.removeData': (state, { id, at }) => {
    const task = state.tasks.get(id);
    if (task && task.status !== 'pending' && !task.dataRemovedAt) state.tasks.put(scrubbedTask(task, at));
  },
  // The records go and their charges stay on their accounts' books, in the same record.
  'task.purge': (state, { ids }) => {
    for (const id of ids) {
      const task = state.tasks.get(id);
      if (!task || task.status === 'pending' || !task.dataRemovedAt) continue;
      state.tasks.delete(id);
      const account = state.accounts.get(task.accountId);
      if (account && task.cost > 0)
        state.accounts.put({ ...account, removedCharges: (account.removedCharges ?? 0) + task.cost });
    }
  },
  'upload.put': (state, upload) => state.uploads.put(upload),
  'upload.delete': (state, { id }) => state.uploads.delete(id),
  'task.item': (state, { id, index, item, at, prepared }) => {
    const task = state.tasks.get(id)!;
    const items = task.items.slice();
    items[index] = item;
    state.tasks.put({ ...task, items, updatedAt: at, ...preparedOnce(task, prepared) });
  },
  'task.prepare': (state, { id, prepared, at }) => {
    const task = state.tasks.get(id)!;
    state.tasks.put({ ...task, prepared, updatedAt: at });
  },
  // One record settles the task and moves the money: the charge leaves the balance and the
  // reserve (derived from the pending task) is released with it.
  'task.settle': (state, s) => {
    const task = state.tasks.get(s.id)!;
    state.tasks.put(settledTask(task, s));
    if (s.cost > 0) {
      const account = state.accounts.get(task.accountId)!;
      state.accounts.put({ ...account, balance: account.balance - s.cost, updatedAt: s.at });
    }
  },
  // A threshold's mark and the event it sends, in one record: the mark never exists without its event.
  'billingAlert.record': (state, { alert, event, deliveries }) => {
    state.billingAlerts.put(alert);
    state.events.put(event);
    for (const delivery of deliveries) state.deliveries.put(delivery);
  },
  'idempotency.put': (state, record) => state.idempotencyKeys.put(record),
  'consoleSession.put': (state, record) => state.consoleSessions.put(record),
  'consoleSession.use': (state, { id, at }) => {
    const record = state.consoleSessions.get(id);
    if (record) state.consoleSessions.put({ ...record, usedAt: at });
  },
  'consoleSession.revoke': (state, { id, at }) => {
    const record = state.consoleSessions.get(id);
    if (record) state.consoleSessions.put({ ...record, revokedAt: at });
  },
  'consoleSession.purge': (state, { before }) => {
    const expired: string[] = [];
    for (const record of state.consoleSessions.values()) if (record.expiresAt <= before) expired.push(record.id);
    for (const id of expired) state.consoleSessions.delete(id);
  },
  'consoleSession.deleteAccount': (state, { accountId }) => {
    for (const id of Array.from(state.consoleSessionsByAccount.ids(accountId))) state.consoleSessions.delete(id);
  },
  'idempotency.deleteAccount': (state, { accountId }) => {
    for (const id of Array.from(state.idempotencyByAccount.ids(accountId))) state.idempotencyKeys.delete(id);
  },
  // Deterministic on replay: the same records have expired at the same `before`.
  'idempotency.purge': (state, { before }) => {
    const expired: string[] = [];
    for (const record of state.idempotencyKeys.values()) if (record.expiresAt <= before) expired.push(record.id);
    for (const id of expired) state.idempotencyKeys.delete(id);
  },
};

class UnknownOpError extends Error {}

const isOp = (op: string): op is JournalOp => Object.hasOwn(HANDLERS, op);

/** Applies a journaled op; replay passes what it read, so an op name from disk is checked first. */
export function applyOp(state: State, op: string, payload: unknown): void {
  if (!isOp(op)) throw new UnknownOpError(`unknown op "${op}"`);
  (HANDLERS[op] as (state: State, payload: unknown) => void)(state, payload);
}
