import type { DeliveryRecord } from '../../records/webhooks.js';
import { type Index, moveOnKeyChange } from './by-key.js';
import { SortedBlocks } from './sorted-keys.js';

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
    moveOnKeyChange(this, DueIndex.keyOf, old, next);
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
