import { performance } from 'node:perf_hooks';
import type { FairItem } from './fair-queue.js';

/** When a slot-holding item started (its start time), kept while it runs. */
export interface Started {
  at: number;
}

/** What a batch asks of its lane to tell where it stands. */
export interface LaneView {
  readonly concurrency: number;
  /** Mean wall time an item holds a slot; undefined until one of the lane has finished. */
  readonly meanMs: number | undefined;
  /** The start times of the items holding a slot now. */
  readonly holding: ReadonlySet<Started>;
  readonly paused: boolean;
  /** How many queued items start before `job`; undefined when it is not in the order (parked, started). */
  rank(job: LaneJob): number | undefined;
}

/** Where a task's items queued in one lane stand: for its progress (GET /tasks/{id}, the live stream). */
export interface LaneBatch {
  /** Items queued ahead of its first one in its lane's order, while none of its own has started; undefined after. */
  queuePosition(): number | undefined;
  /**
   * How long from now until its first item starts (while none has) and until its last one ends,
   * from the lane's mean item time; each undefined when unknown (no item of the lane has finished
   * yet, the lane is paused, or the batch is done).
   */
  estimate(): { startInMs?: number; finishInMs?: number };
}

/** What a queued item carries besides its order: who it belongs to and what to run. */
export interface LaneJob extends FairItem {
  readonly key: string | null;
  /** The key's maxConcurrent when the item was queued. */
  readonly cap: number | undefined;
  /** The model it runs (a provider that last ran it has it loaded). */
  readonly affinity: string | undefined;
  readonly batch: Batch;
  /** Its lane's name. */
  readonly lane: string;
  readonly work: (slot: SlotGrant) => Promise<boolean>;
  /** Ends the item's wait: it ran, or it was dropped unstarted (stopping, or its task settled). */
  readonly done: () => void;
  readonly fail: (err: unknown) => void;
  /** performance.now() when queued: the oldest wait of a lane. */
  readonly queuedAt: number;
  state: 'queued' | 'parked' | 'running' | 'gone';
}

/** What an item is handed when it takes a slot. */
export interface SlotGrant {
  /** The provider of the lane it should try first (model affinity); undefined: its own failover order. */
  readonly provider?: string;
  /**
   * Gives the slot to the next item at once (the engine answered); the rest of the work runs outside it. Idempotent.
   */
  release(): void;
}

/**
 * A task's items queued together in one lane. A class, so each queued task costs its few
 * fields and no closures: a backlog of 100,000 tasks holds 100,000 of them.
 */
export class Batch implements LaneBatch {
  readonly jobs: LaneJob[] = [];
  private started = 0;
  private ended = 0;
  /** Start times of its items holding a slot now (made when the first starts). */
  private mine: Set<Started> | undefined;

  constructor(private readonly lane: LaneView) {}

  onStart(at: Started): void {
    this.started += 1;
    this.mine ??= new Set();
    this.mine.add(at);
  }

  onEnd(at: Started): void {
    this.ended += 1;
    this.mine?.delete(at);
  }

  /** Its first item still in the lane's order (items of a batch keep their order among themselves). */
  private firstQueued(): number | undefined {
    for (const job of this.jobs) if (job.state === 'queued') return this.lane.rank(job);
    return undefined;
  }

  private lastQueued(): number | undefined {
    for (let i = this.jobs.length - 1; i >= 0; i--)
      if (this.jobs[i].state === 'queued') return this.lane.rank(this.jobs[i]);
    return undefined;
  }

  queuePosition(): number | undefined {
    return this.started === 0 ? this.firstQueued() : undefined;
  }

  estimate(): { startInMs?: number; finishInMs?: number } {
    const { lane } = this;
    const perItem = lane.meanMs;
    if (perItem === undefined || this.ended === this.jobs.length || lane.paused) return {};
    const now = performance.now();
    const left = (at: Started) => Math.max(0, perItem - (now - at.at));
    // A full lane frees its first slot when its running item nearest its mean time ends.
    let slotFree = 0;
    if (lane.holding.size >= lane.concurrency) {
      slotFree = Number.POSITIVE_INFINITY;
      for (const at of lane.holding) slotFree = Math.min(slotFree, left(at));
    }
    const perSlot = perItem / lane.concurrency;
    /** When the item with `ahead` items before it would start: those go `concurrency` at a time. */
    const startOf = (ahead: number) => slotFree + ahead * perSlot;
    let finishInMs = 0;
    for (const at of this.mine ?? []) finishInMs = Math.max(finishInMs, left(at));
    const last = this.lastQueued();
    if (last !== undefined) finishInMs = Math.max(finishInMs, startOf(last) + perItem);
    const first = this.started === 0 ? this.firstQueued() : undefined;
    return first !== undefined ? { startInMs: startOf(first), finishInMs } : { finishInMs };
  }
}
