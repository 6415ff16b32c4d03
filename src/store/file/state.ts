import type {
  AccountRecord,
  ApiKeyRecord,
  BillingAlertRecord,
  ConsoleSessionRecord,
  CreditRecord,
  DeliveryRecord,
  DestinationRecord,
  EventRecord,
  IdempotencyRecord,
  LanePauseRecord,
  SecretRecord,
  TaskRecord,
  WebhookRecord,
} from '../records.js';
import { applyKeyChanges, NO_EVENT, preparedOnce, settledTask } from '../records.js';
import { Collection, GroupIndex, type Index, UniqueIndex } from './collection.js';
import { CountIndex, lowerBound, MoneyIndex, OrderedGroupIndex, SetIndex } from './indexes.js';
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
  readonly tasks = new Collection<TaskRecord>('tasks', [this.tasksByAccount, this.pendingTasks, this.money, this.settledWithoutEvent, this.tasksByStatus, this.tasksByTypeStatus, this.monthlyCharges]);

  readonly webhooksByAccount = new GroupIndex<WebhookRecord>((webhook) => webhook.accountId);
  readonly webhooks = new Collection<WebhookRecord>('webhooks', [this.webhooksByAccount]);
  readonly events = new Collection<EventRecord>('events');
  readonly deliveriesByWebhook = new OrderedGroupIndex<DeliveryRecord>((delivery) => delivery.webhookId ?? undefined);
  /** A task's event and where it went (the console's task inspector). */
  readonly deliveriesByEvent = new OrderedGroupIndex<DeliveryRecord>((delivery) => delivery.eventId);
  readonly pendingDeliveries = new SetIndex<DeliveryRecord>((delivery) => delivery.status === 'pending');
  readonly deliveriesByStatus = new CountIndex<DeliveryRecord>((delivery) => delivery.status);
  readonly deliveriesByDue = new DueIndex();
  readonly deliveries = new Collection<DeliveryRecord>('deliveries', [this.deliveriesByWebhook, this.deliveriesByEvent, this.pendingDeliveries, this.deliveriesByStatus, this.deliveriesByDue]);

  readonly destinationByName = new UniqueIndex<DestinationRecord>((d) => `${d.accountId}/${d.name}`);
  readonly destinationsByAccount = new GroupIndex<DestinationRecord>((d) => d.accountId);
  readonly destinations = new Collection<DestinationRecord>('destinations', [this.destinationByName, this.destinationsByAccount]);

  readonly secrets = new Collection<SecretRecord>('secrets');

  /** Budget thresholds reached, by `<scopeId>|<period>|<threshold>`. Not in dumps. */
  readonly billingAlerts = new Collection<BillingAlertRecord>('billingAlerts');

  /** Idempotency-Key answers, by `<accountId>:<key>`. Not in dumps. */
  readonly idempotencyKeys = new Collection<IdempotencyRecord>('idempotencyKeys');

  /** Web console sign-in links and sessions, by id; found by the hash of their secret. Not in dumps. */
  readonly consoleSessionByHash = new UniqueIndex<ConsoleSessionRecord>((record) => record.hash);
  readonly consoleSessions = new Collection<ConsoleSessionRecord>('consoleSessions', [this.consoleSessionByHash]);

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
  'account.update': (state, { id, changes, at }) => {
    const account = state.accounts.get(id)!;
    state.accounts.put({ ...account, ...changes, updatedAt: at });
  },
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
    state.deliveries.put({ ...delivery, status: a.status, attempts: [...delivery.attempts, a.attempt], nextAttemptAt: a.nextAttemptAt, updatedAt: a.attempt.at });
  },
  'delivery.redeliver': (state, { id, at }) => {
    const delivery = state.deliveries.get(id)!;
    state.deliveries.put({ ...delivery, status: 'pending', nextAttemptAt: at, updatedAt: at });
  },
  'destination.put': (state, destination) => state.destinations.put(destination),
  'destination.delete': (state, { id }) => state.destinations.delete(id),
  'task.create': (state, task) => state.tasks.put(task),
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

/**
 * Sorted strings kept in blocks of at most 1,024: adding or removing one costs two binary
 * searches and a splice of one block, however many there are (a single sorted array would
 * move every later entry on each change).
 */
class SortedBlocks {
  private blocks: string[][] = [];
  add(key: string): void {
    if (this.blocks.length === 0) {
      this.blocks.push([key]);
      return;
    }
    const b = this.blockOf(key);
    const block = this.blocks[b];
    block.splice(lowerBound(block, key), 0, key);
    if (block.length > 1024) this.blocks.splice(b + 1, 0, block.splice(512));
  }
  remove(key: string): void {
    if (this.blocks.length === 0) return;
    const b = this.blockOf(key);
    const block = this.blocks[b];
    const at = lowerBound(block, key);
    if (block[at] !== key) return;
    block.splice(at, 1);
    if (block.length === 0) this.blocks.splice(b, 1);
  }
  clear(): void {
    this.blocks = [];
  }
  *values(): Generator<string> {
    for (const block of this.blocks) yield* block;
  }
  /** The first block whose last key is not below `key` (or the last block). */
  private blockOf(key: string): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid];
      if (block[block.length - 1] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * Pending deliveries in the order they fall due (then by id), so the dispatcher takes the
 * next few without scanning the rest of a backlog. Keys are `nextAttemptAt id`: ISO times of
 * one fixed width sort as text.
 */
export class DueIndex implements Index<DeliveryRecord> {
  private readonly keys = new SortedBlocks();
  private static keyOf(d: DeliveryRecord): string | undefined {
    return d.status === 'pending' && d.nextAttemptAt ? `${d.nextAttemptAt} ${d.id}` : undefined;
  }
  add(record: DeliveryRecord): void {
    const key = DueIndex.keyOf(record);
    if (key) this.keys.add(key);
  }
  remove(record: DeliveryRecord): void {
    const key = DueIndex.keyOf(record);
    if (key) this.keys.remove(key);
  }
  update(old: DeliveryRecord, next: DeliveryRecord): void {
    if (DueIndex.keyOf(old) === DueIndex.keyOf(next)) return;
    this.remove(old);
    this.add(next);
  }
  clear(): void {
    this.keys.clear();
  }
  /** Delivery ids with their due time, earliest first. */
  *entries(): Generator<{ id: string; dueAt: string }> {
    for (const key of this.keys.values()) {
      const space = key.indexOf(' ');
      yield { dueAt: key.slice(0, space), id: key.slice(space + 1) };
    }
  }
}
