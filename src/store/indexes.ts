import { PERIODS, type Period, periodKey } from '../domain/periods.js';
import type { Index } from './collection.js';
import type { TaskRecord } from './records.js';

/** Ids per group kept sorted, so listings page newest-first without sorting. Ids are time-sortable. */
export class OrderedGroupIndex<T extends { id: string }> implements Index<T> {
  private readonly groups = new Map<string, string[]>();
  constructor(private readonly keyOf: (record: T) => string | undefined) {}
  add(record: T): void {
    const key = this.keyOf(record);
    if (key === undefined) return;
    let ids = this.groups.get(key);
    if (!ids) {
      ids = [];
      this.groups.set(key, ids);
    }
    if (ids.length === 0 || ids[ids.length - 1] < record.id) ids.push(record.id);
    else {
      const at = lowerBound(ids, record.id);
      if (ids[at] !== record.id) ids.splice(at, 0, record.id);
    }
  }
  remove(record: T): void {
    const key = this.keyOf(record);
    const ids = key === undefined ? undefined : this.groups.get(key);
    if (!ids) return;
    const at = lowerBound(ids, record.id);
    if (ids[at] === record.id) ids.splice(at, 1);
  }
  clear(): void {
    this.groups.clear();
  }
  /** Ids of a group, ascending. Do not mutate. */
  ids(key: string): readonly string[] {
    return this.groups.get(key) ?? [];
  }
}

export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Ids of the records matching a predicate (pending tasks). */
export class SetIndex<T extends { id: string }> implements Index<T> {
  readonly ids = new Set<string>();
  constructor(private readonly matches: (record: T) => boolean) {}
  add(record: T): void {
    if (this.matches(record)) this.ids.add(record.id);
  }
  remove(record: T): void {
    this.ids.delete(record.id);
  }
  clear(): void {
    this.ids.clear();
  }
}

const bump = (map: Map<string, number>, key: string, by: number): void => {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
};

/**
 * Money held and spent, kept in step with the tasks: an account's reserve is the estimate of
 * each pending task; a key's spend in a period is, over the tasks it created in that period,
 * the estimate while pending and the charge once settled (charged + reserved, DESIGN "Money").
 */
export class MoneyIndex implements Index<TaskRecord> {
  readonly reservedByAccount = new Map<string, number>();
  readonly spendByKeyPeriod = new Map<string, number>();
  add(task: TaskRecord): void {
    this.apply(task, 1);
  }
  remove(task: TaskRecord): void {
    this.apply(task, -1);
  }
  clear(): void {
    this.reservedByAccount.clear();
    this.spendByKeyPeriod.clear();
  }
  reserved(accountId: string): number {
    return this.reservedByAccount.get(accountId) ?? 0;
  }
  spend(keyId: string, period: Period, millis: number): number {
    return this.spendByKeyPeriod.get(spendKey(keyId, period, millis)) ?? 0;
  }
  private apply(task: TaskRecord, sign: 1 | -1): void {
    const pending = task.status === 'pending';
    if (pending) bump(this.reservedByAccount, task.accountId, sign * task.estimate);
    if (task.apiKeyId === null) return;
    const amount = pending ? task.estimate : task.cost;
    if (amount === 0) return;
    const created = Date.parse(task.createdAt);
    for (const period of PERIODS) bump(this.spendByKeyPeriod, spendKey(task.apiKeyId, period, created), sign * amount);
  }
}

const spendKey = (keyId: string, period: Period, millis: number): string => `${keyId}|${periodKey(period, millis)}`;

/** How many records have each value of a key (tasks by status): kept in step, never counted by scanning. */
export class CountIndex<T extends { id: string }> implements Index<T> {
  readonly counts = new Map<string, number>();
  constructor(private readonly keyOf: (record: T) => string) {}
  add(record: T): void {
    bump(this.counts, this.keyOf(record), 1);
  }
  remove(record: T): void {
    bump(this.counts, this.keyOf(record), -1);
  }
  clear(): void {
    this.counts.clear();
  }
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
