import { performance } from 'node:perf_hooks';
import PQueue from 'p-queue';
import type { ConfigSource } from '../../config/source.js';
import { laneProviders } from '../../domain/provider-lanes.js';
import type { LaneBacklog } from '../load-limits.js';

/** The most items a lane of several providers runs at once without a `work.lanes` setting of its own. */
const MAX_LANE_CONCURRENCY = 256;

/** Weight of the newest item in a lane's mean item time (an exponentially weighted mean): about the last ten items count. */
const ITEM_TIME_WEIGHT = 0.2;

interface LaneTiming {
  /** Mean wall time an item holds a slot of the lane (its retries and backoff included); undefined until one finishes. */
  meanMs: number | undefined;
  /** Start times of the items running now. */
  running: Set<{ at: number }>;
  /**
   * Counts in queue order, for where a batch stands without a walk of the queue: tickets handed
   * out to batches (tasks) and to items, items started, and the newest batch whose items have all
   * started. A p-queue starts its jobs in the order they were added, so a batch's items wait
   * behind exactly the items with lower tickets that have not started.
   */
  batches: number;
  batchesStarted: number;
  items: number;
  itemsStarted: number;
}

/** Told when a job starts and when it ends, with its start time. */
interface JobHooks {
  onStart(started: { at: number }): void;
  onEnd(started: { at: number }): void;
}

/** Where a task's items queued in one lane stand: for its progress (GET /tasks/{id}, the live stream). */
export interface LaneBatch {
  /** Batches (tasks) ahead of this one in its lane with items still waiting, while none of its own has started; undefined after. */
  queuePosition(): number | undefined;
  /**
   * How long from now until its first item starts (while none has) and until its last one ends,
   * from the lane's mean item time; each undefined when unknown (no item of the lane has finished
   * yet, or the batch is done).
   */
  estimate(): { startInMs?: number; finishInMs?: number };
}

/**
 * A task's items queued together in one lane (Lanes.runBatch). A class, so each queued task
 * costs its few fields and no closures: a backlog of 100,000 tasks holds 100,000 of them.
 */
class Batch implements LaneBatch, JobHooks {
  private readonly ticket: number;
  private readonly firstItem: number;
  private started = 0;
  private ended = 0;
  /** Start times of its items running now (made when the first starts). */
  private mine: Set<{ at: number }> | undefined;

  constructor(
    private readonly timing: LaneTiming,
    private readonly queue: PQueue,
    private readonly size: number,
    private readonly lanes: { readonly stopped: boolean },
  ) {
    this.ticket = ++timing.batches;
    this.firstItem = timing.items + 1;
  }

  onStart(at: { at: number }): void {
    this.started += 1;
    this.mine ??= new Set();
    this.mine.add(at);
    // Jobs start in the order they were added: its last one starting means all of its items have.
    if (this.started === this.size) this.timing.batchesStarted = Math.max(this.timing.batchesStarted, this.ticket);
  }

  onEnd(at: { at: number }): void {
    this.ended += 1;
    this.mine?.delete(at);
  }

  queuePosition(): number | undefined {
    return this.started === 0 && !this.lanes.stopped ? Math.max(0, this.ticket - 1 - this.timing.batchesStarted) : undefined;
  }

  estimate(): { startInMs?: number; finishInMs?: number } {
    const { timing, queue } = this;
    const perItem = timing.meanMs;
    if (perItem === undefined || this.ended === this.size || this.lanes.stopped) return {};
    const now = performance.now();
    const left = (at: { at: number }) => Math.max(0, perItem - (now - at.at));
    // A full lane frees its first slot when its running item nearest its mean time ends.
    let slotFree = 0;
    if (timing.running.size >= queue.concurrency) {
      slotFree = Number.POSITIVE_INFINITY;
      for (const at of timing.running) slotFree = Math.min(slotFree, left(at));
    }
    const perSlot = perItem / queue.concurrency;
    /** When the item with this ticket would start: the items queued ahead of it go `concurrency` at a time. */
    const startOf = (item: number) => slotFree + Math.max(0, item - 1 - timing.itemsStarted) * perSlot;
    let finishInMs = 0;
    for (const at of this.mine ?? []) finishInMs = Math.max(finishInMs, left(at));
    if (this.started < this.size) finishInMs = Math.max(finishInMs, startOf(this.firstItem + this.size - 1) + perItem);
    return this.started === 0 ? { startInMs: startOf(this.firstItem), finishInMs } : { finishInMs };
  }
}

/**
 * One p-queue per lane (a provider or a task type) with its own concurrency, so slow work
 * in one lane (background removal) never holds up another (rating). A lane's concurrency is
 * `work.lanes.<lane>`, else its providers' `concurrency` summed (a model's lane is its providers
 * together: domain/provider-lanes.ts), else `work.defaultConcurrency`;
 * a config reload applies to the lanes at once. Each lane keeps a recent mean of its item
 * times, from which `queueDelayMs` estimates how long new work would wait (backpressure).
 */
export class Lanes implements LaneBacklog {
  private readonly queues = new Map<string, PQueue>();
  private readonly timings = new Map<string, LaneTiming>();
  private readonly unsubscribe: () => void;
  /**
   * What settles each job queued and not started yet, as dropped: p-queue's clear() never
   * settles the promise of a job it drops, and a waiter on one (close()) would wait forever.
   */
  private readonly queued = new Set<() => void>();
  private halted = false;

  constructor(private readonly config: ConfigSource) {
    this.unsubscribe = config.onChange(() => {
      for (const [lane, queue] of this.queues) queue.concurrency = this.concurrencyOf(lane);
    });
  }

  private concurrencyOf(lane: string): number {
    const { work, providers } = this.config.current();
    if (work.lanes[lane] !== undefined) return work.lanes[lane];
    // A model's lane is its providers together: as many at once as they take between them.
    // Video lanes are `video:<providers>`, with the same sum.
    const members = laneProviders(lane.replace(/^video:/, '')).map((name) => providers[name]);
    if (members.every((provider) => provider !== undefined))
      return Math.min(
        MAX_LANE_CONCURRENCY,
        members.reduce((sum, provider) => sum + provider.concurrency, 0),
      );
    return work.defaultConcurrency;
  }

  get(lane: string): PQueue {
    let queue = this.queues.get(lane);
    if (!queue) {
      queue = new PQueue({ concurrency: this.concurrencyOf(lane) });
      this.queues.set(lane, queue);
    }
    return queue;
  }

  /**
   * Runs one item's `work` as a job of `lane`, timed. Resolves once it ran, or as soon as stop()
   * drops it unstarted (also when added after stop()): it then never runs here, and its item
   * stays pending in the store for the next start.
   */
  run(lane: string, work: () => Promise<boolean>, hooks?: JobHooks): Promise<void> {
    if (this.halted) return Promise.resolve();
    const queue = this.get(lane);
    const timing = this.timingOf(lane);
    timing.items += 1;
    return new Promise<void>((resolve, reject) => {
      const drop = () => resolve();
      this.queued.add(drop);
      queue
        .add(() => {
          this.queued.delete(drop);
          return this.timed(timing, work, hooks);
        })
        .then(resolve, reject);
    });
  }

  /**
   * Queues a task's items (`works`, in order) as jobs of `lane`, under one batch ticket, and
   * answers where the batch stands: O(1) per question, whatever the backlog.
   */
  runBatch(lane: string, works: (() => Promise<boolean>)[]): { jobs: Promise<void>[]; batch: LaneBatch } {
    const batch = new Batch(this.timingOf(lane), this.get(lane), works.length, this);
    // One per item: each resolves once it ran, or was dropped unstarted (see run).
    return { jobs: works.map((work) => this.run(lane, work, batch)), batch };
  }

  /** Whether stop() was called: no job runs any more. */
  get stopped(): boolean {
    return this.halted;
  }

  private timingOf(lane: string): LaneTiming {
    let timing = this.timings.get(lane);
    if (!timing) {
      timing = { meanMs: undefined, running: new Set(), batches: 0, batchesStarted: 0, items: 0, itemsStarted: 0 };
      this.timings.set(lane, timing);
    }
    return timing;
  }

  /**
   * Runs one item's `work`, timing it. Work that resolves false did nothing (its item was
   * already settled, or the worker is stopping) and is not counted.
   */
  private async timed(timing: LaneTiming, work: () => Promise<boolean>, hooks?: JobHooks): Promise<void> {
    const started = { at: performance.now() };
    timing.itemsStarted += 1;
    timing.running.add(started);
    hooks?.onStart(started);
    let worked = false;
    try {
      worked = await work();
    } finally {
      timing.running.delete(started);
      hooks?.onEnd(started);
      if (worked) {
        const ms = performance.now() - started.at;
        timing.meanMs = timing.meanMs === undefined ? ms : timing.meanMs + ITEM_TIME_WEIGHT * (ms - timing.meanMs);
      }
    }
  }

  /**
   * How long an item added to `lane` now would wait for a slot: its queued items × their mean
   * item time ÷ the lane's concurrency. Before any item of the lane has finished, the longest
   * one running stands for the mean (a lower bound: nothing is assumed that was not seen), so
   * an idle or brand-new lane estimates 0.
   */
  queueDelayMs(lane: string): number {
    const queue = this.queues.get(lane);
    if (!queue || queue.size === 0) return 0;
    const timing = this.timings.get(lane);
    let perItem = timing?.meanMs;
    if (perItem === undefined) {
      const now = performance.now();
      perItem = 0;
      for (const item of timing?.running ?? []) perItem = Math.max(perItem, now - item.at);
    }
    return (queue.size * perItem) / queue.concurrency;
  }

  /**
   * Drops queued jobs that have not started (they stay pending in the store and run after a
   * restart; their run() resolves now), refuses new ones, and stops following the config.
   */
  stop(): void {
    this.halted = true;
    this.unsubscribe();
    for (const queue of this.queues.values()) queue.clear();
    for (const drop of this.queued) drop();
    this.queued.clear();
  }

  /** Resolves when no job runs in any lane. */
  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.onIdle()));
  }

  stats(): Record<string, { running: number; queued: number; concurrency: number; meanItemMs: number | null }> {
    const out: Record<string, { running: number; queued: number; concurrency: number; meanItemMs: number | null }> = {};
    for (const [lane, queue] of this.queues) out[lane] = { running: queue.pending, queued: queue.size, concurrency: queue.concurrency, meanItemMs: this.timings.get(lane)?.meanMs ?? null };
    return out;
  }
}
