import type { TaskRecord } from '../../records/tasks.js';
import type { Index } from '../indexes/by-key.js';

/**
 * What each account was charged per UTC calendar month of settlement, kept in step with the
 * tasks (a budget alert reads it on every settlement: no scan). A settled task counts its
 * charge in the month of its `updatedAt`, which a settlement sets and nothing changes after.
 */
export class MonthlyChargeIndex implements Index<TaskRecord> {
  private readonly sums = new Map<string, number>();
  add(task: TaskRecord): void {
    this.bump(task, 1);
  }
  remove(task: TaskRecord): void {
    this.bump(task, -1);
  }
  update(old: TaskRecord, next: TaskRecord): void {
    if (old.status === 'pending' && next.status === 'pending') return; // an item recorded: no charge yet
    this.bump(old, -1);
    this.bump(next, 1);
  }
  clear(): void {
    this.sums.clear();
  }
  charged(accountId: string, month: string): number {
    return this.sums.get(`${accountId}|${month}`) ?? 0;
  }
  private bump(task: TaskRecord, sign: 1 | -1): void {
    if (task.status === 'pending' || !(task.cost > 0)) return;
    const key = `${task.accountId}|${task.updatedAt.slice(0, 7)}`;
    const next = (this.sums.get(key) ?? 0) + sign * task.cost;
    if (next === 0) this.sums.delete(key);
    else this.sums.set(key, next);
  }
}
