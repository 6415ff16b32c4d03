import { performance } from 'node:perf_hooks';
import PQueue from 'p-queue';
import type { ConfigSource } from '../../config/source.js';
import type { LaneBacklog } from '../load-limits.js';

/** Weight of the newest item in a lane's mean item time (an exponentially weighted mean): about the last ten items count. */
const ITEM_TIME_WEIGHT = 0.2;

interface LaneTiming {
  /** Mean wall time an item holds a slot of the lane (its retries and backoff included); undefined until one finishes. */
  meanMs: number | undefined;
  /** Start times of the items running now. */
  running: Set<{ at: number }>;
}

/**
 * One p-queue per lane (a provider or a task type) with its own concurrency, so slow work
 * in one lane (background removal) never holds up another (rating). A lane's concurrency is
 * `work.lanes.<lane>`, else the provider's own `concurrency`, else `work.defaultConcurrency`;
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
  private stopped = false;

  constructor(private readonly config: ConfigSource) {
    this.unsubscribe = config.onChange(() => {
      for (const [lane, queue] of this.queues) queue.concurrency = this.concurrencyOf(lane);
    });
  }

  private concurrencyOf(lane: string): number {
    const { work, providers } = this.config.current();
    return work.lanes[lane] ?? providers[lane]?.concurrency ?? work.defaultConcurrency;
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
  run(lane: string, work: () => Promise<boolean>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const queue = this.get(lane);
    return new Promise<void>((resolve, reject) => {
      const drop = () => resolve();
      this.queued.add(drop);
      queue
        .add(() => {
          this.queued.delete(drop);
          return this.timed(lane, work);
        })
        .then(resolve, reject);
    });
  }

  /**
   * Runs one item's `work`, timing it. Work that resolves false did nothing (its item was
   * already settled, or the worker is stopping) and is not counted.
   */
  private async timed(lane: string, work: () => Promise<boolean>): Promise<void> {
    let timing = this.timings.get(lane);
    if (!timing) {
      timing = { meanMs: undefined, running: new Set() };
      this.timings.set(lane, timing);
    }
    const started = { at: performance.now() };
    timing.running.add(started);
    let worked = false;
    try {
      worked = await work();
    } finally {
      timing.running.delete(started);
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
    this.stopped = true;
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
