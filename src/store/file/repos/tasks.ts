import { AppError } from '../../../domain/errors.js';
import type { Period } from '../../../domain/periods.js';
import { metadataMatches, metadataOf } from '../../../domain/task-status.js';
import { finishedItems, type ItemRecord, type TaskRecord, type TaskSettlement } from '../../records/tasks.js';
import type { TaskListQuery, TaskRepo } from '../../repos/tasks.js';
import { lowerBound } from '../indexes/by-key.js';
import { mergeByTime } from '../indexes/sorted-keys.js';
import { storedBytesOf } from '../indexes/sums.js';
import type { JournalEngine } from '../journal/journal-engine.js';

/** The first `limit` ids of a walk. */
function take(walk: Iterable<{ id: string }>, limit: number): string[] {
  const ids: string[] = [];
  if (limit <= 0) return ids;
  for (const { id } of walk) {
    ids.push(id);
    if (ids.length >= limit) break;
  }
  return ids;
}

export function createTaskRepo(engine: JournalEngine): TaskRepo {
  const { state } = engine;
  const pending = (id: string) => {
    const task = state.tasks.get(id);
    return task && task.status === 'pending' ? task : undefined;
  };
  return {
    async create(task, { spendingLimit }) {
      const account = state.accounts.get(task.accountId);
      if (!account) throw new AppError('UNAUTHORIZED', 'the account no longer exists');
      // An erase marks the account first: a create that got past its credential before that finds it here.
      if (account.erasingSince !== undefined || account.erasedAt !== undefined)
        throw new AppError('UNAUTHORIZED', 'this account is being erased');
      // Checks and insert run in one synchronous step: no other create can slip between them.
      const available = account.balance - state.money.reserved(account.id);
      if (available < task.estimate) {
        throw new AppError(
          'INSUFFICIENT_BALANCE',
          `the estimate is ${task.estimate / 1e6} USD and the available balance is ${available / 1e6} USD`,
        );
      }
      if (spendingLimit && task.apiKeyId) {
        const spent = state.money.spend(task.apiKeyId, spendingLimit.period, Date.parse(task.createdAt));
        if (spent + task.estimate > spendingLimit.limit) {
          throw new AppError(
            'SPENDING_LIMIT_EXCEEDED',
            `this key's spending limit for the current ${spendingLimit.period} is used up`,
          );
        }
      }
      await engine.commit('task.create', task);
      return state.tasks.get(task.id)!;
    },
    async recordItem(id, index, item: ItemRecord, at, prepared) {
      const task = pending(id);
      if (task?.items[index]?.status !== 'pending') return undefined;
      await engine.commit(
        'task.item',
        prepared === undefined ? { id, index, item, at } : { id, index, item, at, prepared },
      );
      return state.tasks.get(id);
    },
    async savePrepared(id, prepared, at) {
      if (!pending(id)) return undefined;
      await engine.commit('task.prepare', { id, prepared, at });
      return state.tasks.get(id);
    },
    async settle(settlement: TaskSettlement) {
      const task = pending(settlement.id);
      if (!task) return undefined;
      if (settlement.lastItem && task.items[settlement.lastItem.index]?.status !== 'pending') return undefined;
      if (settlement.finished !== undefined && finishedItems(task) !== settlement.finished) return undefined;
      if (settlement.cost < 0 || settlement.cost > task.estimate)
        throw new Error(`settlement of ${task.id} charges ${settlement.cost}, outside 0..${task.estimate}`);
      await engine.commit('task.settle', settlement);
      return state.tasks.get(settlement.id);
    },
    async get(id) {
      return state.tasks.get(id);
    },
    async listPending() {
      return Array.from(state.pendingTasks.ids, (id) => state.tasks.get(id)!);
    },
    async countPending() {
      return state.pendingTasks.ids.size;
    },
    async list(accountId: string, query: TaskListQuery) {
      const matches = (task: TaskRecord) =>
        (query.status === undefined || task.status === query.status) &&
        (query.type === undefined || task.type === query.type) &&
        (query.apiKeyId === undefined || task.apiKeyId === query.apiKeyId) &&
        (query.metadata === undefined || metadataMatches(metadataOf(task.request), query.metadata));
      const ids = state.tasksByAccount.ids(accountId);
      const end = query.before === undefined ? ids.length : lowerBound(ids, query.before);
      const out: TaskRecord[] = [];
      if (query.after !== undefined) {
        // A newer page: oldest first from just after the cursor, then shown newest first.
        let i = lowerBound(ids, query.after);
        if (ids[i] === query.after) i++;
        for (; i < end && out.length < query.limit + 1; i++) {
          const task = state.tasks.get(ids[i])!;
          if (query.createdAfter !== undefined && task.createdAt < query.createdAfter) continue;
          if (query.createdBefore !== undefined && task.createdAt >= query.createdBefore) break; // newer from here on
          if (matches(task)) out.push(task);
        }
        return { tasks: out.slice(0, query.limit).reverse(), more: out.length > query.limit };
      }
      for (let i = end - 1; i >= 0 && out.length < query.limit + 1; i--) {
        const task = state.tasks.get(ids[i])!;
        if (query.createdBefore !== undefined && task.createdAt >= query.createdBefore) continue;
        if (query.createdAfter !== undefined && task.createdAt < query.createdAfter) break; // older from here on
        if (matches(task)) out.push(task);
      }
      const more = out.length > query.limit;
      return { tasks: out.slice(0, query.limit), more };
    },
    async reserved(accountId) {
      return state.money.reserved(accountId);
    },
    async keySpend(keyId: string, period: Period, millis: number) {
      return state.money.spend(keyId, period, millis);
    },
    async all() {
      return state.tasks.values();
    },
    async countsByStatus() {
      const c = state.tasksByStatus;
      return { pending: c.get('pending'), completed: c.get('completed'), failed: c.get('failed') };
    },
    async countsByTypeStatus() {
      return Array.from(state.tasksByTypeStatus.counts, ([key, count]) => {
        const [type, status] = key.split(' ') as [string, TaskRecord['status']];
        return { type, status, count };
      }).filter((entry) => entry.count > 0);
    },
    async pastDeadline(at, limit) {
      // A walk of the pending tasks: the file store's own process keeps every deadline on a timer
      // (engine/deadlines.ts) and never asks; this answers the contract.
      const due: TaskRecord[] = [];
      for (const id of state.pendingTasks.ids) {
        const task = state.tasks.get(id)!;
        if (task.deadlineAt !== undefined && task.deadlineAt <= at) due.push(task);
      }
      return due
        .sort((a, b) => (a.deadlineAt! < b.deadlineAt! ? -1 : 1))
        .slice(0, limit)
        .map((task) => task.id);
    },
    async removeData(id, at) {
      const task = state.tasks.get(id);
      if (!task || task.status === 'pending' || task.dataRemovedAt) return task;
      await engine.commit('task.removeData', { id, at });
      return state.tasks.get(id);
    },
    async withDataSettledBefore(accountId, before, limit) {
      return take(state.settledWithData.before(accountId, before), limit).map((id) => state.tasks.get(id)!);
    },
    async settledBefore(accountId, before, limit) {
      return take(
        mergeByTime(
          state.settledWithData.before(accountId, before),
          state.settledDataRemoved.before(accountId, before),
        ),
        limit,
      );
    },
    async purge(ids) {
      const purged = Array.from(new Set(ids)).filter((id) => {
        const task = state.tasks.get(id);
        return task !== undefined && task.status !== 'pending' && task.dataRemovedAt !== undefined;
      });
      if (purged.length === 0) return 0;
      await engine.commit('task.purge', { ids: purged });
      return purged.length;
    },
    async storedBytes(accountId) {
      return state.storedBytes.total(accountId, () => {
        let bytes = 0;
        // Read without keeping: a usage report does not leave the account's tasks parsed in memory.
        for (const id of state.tasksByAccount.ids(accountId)) bytes += storedBytesOf(state.tasks.peek(id)!);
        return bytes;
      });
    },
    async recent(limit) {
      // Each account's ids are sorted by time; their tails merged give the newest overall.
      const tails: string[] = [];
      for (const account of state.accounts.values()) {
        const ids = state.tasksByAccount.ids(account.id);
        tails.push(...ids.slice(Math.max(0, ids.length - limit)));
      }
      return tails
        .sort()
        .slice(-limit)
        .reverse()
        .map((id) => state.tasks.get(id)!);
    },
  };
}
