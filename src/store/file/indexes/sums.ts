import { PERIODS, type Period, periodKey } from '../../../domain/periods.js';
import type { TaskRecord } from '../../records/tasks.js';
import type { Index } from './by-key.js';

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
  private readonly lastSpendKeys = new Map<string, { date: string; keys: readonly string[] }>();
  add(task: TaskRecord): void {
    this.apply(task, 1);
  }
  remove(task: TaskRecord): void {
    this.apply(task, -1);
  }
  /**
   * Moves only the differences: an item recorded moves nothing; a settlement releases the reserve and turns the
   * estimate into the charge.
   */
  update(old: TaskRecord, next: TaskRecord): void {
    if (old.accountId !== next.accountId || old.apiKeyId !== next.apiKeyId || old.createdAt !== next.createdAt) {
      this.remove(old);
      this.add(next);
      return;
    }
    const reserve = reserveOf(next) - reserveOf(old);
    if (reserve !== 0) bump(this.reservedByAccount, next.accountId, reserve);
    const spend = spendOf(next) - spendOf(old);
    if (spend !== 0 && next.apiKeyId !== null) this.bumpSpend(next.apiKeyId, next.createdAt, spend);
  }
  clear(): void {
    this.reservedByAccount.clear();
    this.spendByKeyPeriod.clear();
    this.lastSpendKeys.clear();
  }
  reserved(accountId: string): number {
    return this.reservedByAccount.get(accountId) ?? 0;
  }
  spend(keyId: string, period: Period, millis: number): number {
    return this.spendByKeyPeriod.get(spendKey(keyId, period, millis)) ?? 0;
  }
  private apply(task: TaskRecord, sign: 1 | -1): void {
    const reserve = reserveOf(task);
    if (reserve !== 0) bump(this.reservedByAccount, task.accountId, sign * reserve);
    const amount = spendOf(task);
    if (amount !== 0 && task.apiKeyId !== null) this.bumpSpend(task.apiKeyId, task.createdAt, sign * amount);
  }
  private bumpSpend(keyId: string, createdAt: string, by: number): void {
    for (const key of this.spendKeys(keyId, createdAt)) bump(this.spendByKeyPeriod, key, by);
  }
  /**
   * A key's spend keys for the day of `createdAt`, remembered per key: consecutive tasks of a
   * key mostly share a day, and comparing the date part of an ISO time is far cheaper than parsing it.
   */
  private spendKeys(keyId: string, createdAt: string): readonly string[] {
    const last = this.lastSpendKeys.get(keyId);
    if (last !== undefined && createdAt.length === ISO_LENGTH && createdAt.startsWith(last.date)) return last.keys;
    const created = Date.parse(createdAt);
    const keys = PERIODS.map((period) => spendKey(keyId, period, created));
    this.lastSpendKeys.set(keyId, { date: new Date(created).toISOString().slice(0, 10), keys });
    return keys;
  }
}

/** What a task holds of its account's balance: its estimate while pending. */
const reserveOf = (task: TaskRecord): number => (task.status === 'pending' ? task.estimate : 0);
/** What a task counts against its key's spending limit: the estimate while pending, then the charge. */
const spendOf = (task: TaskRecord): number => (task.status === 'pending' ? task.estimate : task.cost);

/** `2026-01-01T00:00:00.000Z`: the form every stored time has (`toISOString`). */
const ISO_LENGTH = 24;
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
  update(old: T, next: T): void {
    const before = this.keyOf(old);
    const after = this.keyOf(next);
    if (before === after) return;
    bump(this.counts, before, -1);
    bump(this.counts, after, 1);
  }
  clear(): void {
    this.counts.clear();
  }
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/** Bytes of the files a task holds: its items' `files`, none once its data is removed. */
export const storedBytesOf = (task: TaskRecord): number => {
  if (task.dataRemovedAt) return 0;
  let bytes = 0;
  for (const item of task.items) for (const file of item.files ?? []) bytes += file.bytes;
  return bytes;
};

/**
 * Bytes of the files each account's tasks hold. A record loaded from a snapshot and not read
 * since is a stub without its items (see `Index`), so an account's total is counted once, when
 * first asked (`total`), by reading its tasks; from then on each change moves it. A change that
 * shows only a stub drops the total, to be counted again.
 */
export class StoredBytesIndex implements Index<TaskRecord> {
  private readonly totals = new Map<string, number>();
  add(task: TaskRecord): void {
    this.move(task, 1);
  }
  remove(task: TaskRecord): void {
    this.move(task, -1);
  }
  /** The hot path (an item recorded): only accounts already counted pay for it. */
  update(old: TaskRecord, next: TaskRecord): void {
    if (old.items === next.items && old.dataRemovedAt === next.dataRemovedAt && old.accountId === next.accountId)
      return;
    this.move(old, -1);
    this.move(next, 1);
  }
  clear(): void {
    this.totals.clear();
  }
  /** The account's total; `count` reads it from the tasks when it is not known yet. */
  total(accountId: string, count: () => number): number {
    let total = this.totals.get(accountId);
    if (total === undefined) {
      total = count();
      this.totals.set(accountId, total);
    }
    return total;
  }
  private move(task: TaskRecord, sign: 1 | -1): void {
    const total = this.totals.get(task.accountId);
    if (total === undefined) return;
    if (!Array.isArray(task.items)) this.totals.delete(task.accountId);
    else this.totals.set(task.accountId, total + sign * storedBytesOf(task));
  }
}

/**
 * How many records each group (an account) holds and the sum of their `bytes`: kept in step, never counted by scanning.
 */
export class UsageIndex<T extends { id: string; bytes: number }> implements Index<T> {
  private readonly usage = new Map<string, { count: number; bytes: number }>();
  /** `groupOf` answers undefined for a record not counted (a tombstone). */
  constructor(private readonly groupOf: (record: T) => string | undefined) {}
  add(record: T): void {
    this.bump(record, 1);
  }
  remove(record: T): void {
    this.bump(record, -1);
  }
  clear(): void {
    this.usage.clear();
  }
  get(group: string): { count: number; bytes: number } {
    const usage = this.usage.get(group);
    return usage ? { ...usage } : { count: 0, bytes: 0 };
  }
  private bump(record: T, sign: 1 | -1): void {
    const group = this.groupOf(record);
    if (group === undefined) return;
    const usage = this.usage.get(group) ?? { count: 0, bytes: 0 };
    const next = { count: usage.count + sign, bytes: usage.bytes + sign * record.bytes };
    if (next.count === 0) this.usage.delete(group);
    else this.usage.set(group, next);
  }
}
