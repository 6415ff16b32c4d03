import type { LaneJob } from './lane-batch.js';

/** How long an item refused a fleet-wide slot of its key waits before asking again. */
const FLEET_RETRY_MS = 250;

/**
 * Fleet-wide slots of keys with a maxConcurrent (PostgreSQL: session advisory locks, one per
 * slot, so a process that dies gives its slots back with its connection). A grant answers the
 * function that gives the slot back; null when every slot is taken elsewhere.
 */
export interface FleetKeySlots {
  acquire(key: string, cap: number): Promise<(() => void) | null>;
}

/**
 * Per-key concurrency (an API key's maxConcurrent), across every lane of the process: an item
 * whose key already runs its cap here is parked, out of its lane's order, and the first parked
 * item of that key goes back when one of the key's items ends. Parking keeps the lane's other
 * accounts and keys going, and costs O(log n) per item, never a walk of the queue.
 */
export class KeyGate {
  private readonly running = new Map<string, number>();
  /** Parked items per key, in their lanes' order (the order they were taken in). */
  private readonly parked = new Map<string, LaneJob[]>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    /** Puts an unparked item back into its lane's order (and lets the lane start it). */
    private readonly unpark: (job: LaneJob) => void,
    readonly fleet?: FleetKeySlots,
  ) {}

  /** Whether `job`'s key already runs as many items here as its cap allows. */
  full(job: LaneJob): boolean {
    return job.key !== null && job.cap !== undefined && (this.running.get(job.key) ?? 0) >= job.cap;
  }

  /** Counts a start of `job`'s key. */
  take(job: LaneJob): void {
    if (job.key !== null && job.cap !== undefined) this.running.set(job.key, (this.running.get(job.key) ?? 0) + 1);
  }

  /** Counts an end of `job`'s key, and lets its first parked item go back to its lane. */
  give(job: LaneJob): void {
    if (job.key === null || job.cap === undefined) return;
    const left = (this.running.get(job.key) ?? 1) - 1;
    if (left > 0) this.running.set(job.key, left);
    else this.running.delete(job.key);
    this.release(job.key);
  }

  /** Takes back a start the fleet refused, without letting another parked item of the key in. */
  untake(job: LaneJob): void {
    if (job.key === null || job.cap === undefined) return;
    const left = (this.running.get(job.key) ?? 1) - 1;
    if (left > 0) this.running.set(job.key, left);
    else this.running.delete(job.key);
  }

  /** Takes `job` out of the order until its key has room. */
  park(job: LaneJob): void {
    job.state = 'parked';
    const list = this.parked.get(job.key!) ?? [];
    list.push(job);
    this.parked.set(job.key!, list);
  }

  /** Parks `job` after the fleet refused it a slot, and asks again a little later. */
  parkForFleet(job: LaneJob): void {
    this.park(job);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.release(job.key!);
    }, FLEET_RETRY_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Drops a parked item (its task settled, or the lanes stop); false when it was not parked. */
  drop(job: LaneJob): boolean {
    const list = job.key === null ? undefined : this.parked.get(job.key);
    const at = list?.indexOf(job) ?? -1;
    if (at < 0) return false;
    list!.splice(at, 1);
    if (list!.length === 0) this.parked.delete(job.key!);
    return true;
  }

  /** Every parked item (the lanes stop). */
  *all(): Iterable<LaneJob> {
    for (const list of this.parked.values()) yield* list;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.parked.clear();
  }

  private release(key: string): void {
    const list = this.parked.get(key);
    const job = list?.shift();
    if (!job) return;
    if (list!.length === 0) this.parked.delete(key);
    this.unpark(job);
  }
}
