import { performance } from 'node:perf_hooks';
import type { ConfigSource } from '../../config/source.js';
import { laneProviders } from '../../domain/provider-lanes.js';
import type { LaneBacklog } from '../load-limits.js';
import { type FleetKeySlots, KeyGate } from './key-gate.js';
import { Lane } from './lane.js';
import { Batch, type LaneBatch, type LaneJob, type SlotGrant } from './lane-batch.js';

export type { LaneBatch, SlotGrant };

/** The most items a lane of several providers runs at once without a `work.lanes` setting of its own. */
const MAX_LANE_CONCURRENCY = 256;

/** Who a task's items belong to, for their place in the order (docs/scheduling.md). */
export interface JobOwner {
  account: string;
  /** The API key that created the task; null for an access token. */
  key: string | null;
  /** -10..10. */
  priority: number;
  /** The account's weight (1..100). */
  weight: number;
  /** The key's maxConcurrent, if it has one. */
  maxConcurrent?: number;
  /** The model its items run (model affinity). */
  affinity?: string;
}

/** A lane's load as claims read it. */
export interface LaneLoad {
  running: number;
  queued: number;
  concurrency: number;
  /** Items to hold queued beyond the slots, so model affinity has a choice (a lane of several providers). */
  lookahead: number;
}

const loadOf = (lane: Lane): LaneLoad => ({
  running: lane.slots,
  queued: lane.queued,
  concurrency: lane.concurrency,
  lookahead: lane.lookahead,
});

/** One lane as operators see it (imgtask queues, /metrics, the dashboards). */
export interface LaneStats {
  running: number;
  queued: number;
  concurrency: number;
  meanItemMs: number | null;
  paused: boolean;
  /** How long the oldest queued item has waited, in ms (0 with none queued). */
  oldestQueuedMs: number;
  /** The accounts with the most items queued (at most five). */
  topAccounts: { account: string; queued: number }[];
}

/**
 * The lanes of this process, one per provider set or task type, each with its own slots, so
 * slow work in one (background removal) never holds up another (rating). A lane's concurrency
 * is `work.lanes.<lane>`, else its providers' `concurrency` summed (a model's lane is its
 * providers together: domain/provider-lanes.ts), else `work.defaultConcurrency`; a config
 * reload applies at once. Who starts next in a lane is the fair order (fair-queue.ts): priority,
 * then accounts by weight, then arrival; keys with a maxConcurrent are held to it across lanes
 * (key-gate.ts). Each lane keeps a recent mean of its item times, from which `queueDelayMs`
 * estimates how long new work would wait (backpressure).
 */
export class Lanes implements LaneBacklog {
  private readonly lanes = new Map<string, Lane>();
  private readonly gate: KeyGate;
  private readonly unsubscribe: () => void;
  private readonly operatorPaused = new Set<string>();
  private seq = 0;
  private halted = false;

  constructor(
    private readonly config: ConfigSource,
    options: { fleetKeySlots?: FleetKeySlots; log?: (message: string) => void } = {},
  ) {
    this.gate = new KeyGate((job) => this.get(job.lane).unparked(job), options.fleetKeySlots);
    const log = options.log ?? (() => {});
    this.env = {
      gate: this.gate,
      concurrencyOf: (lane) => this.concurrencyOf(lane),
      providersOf: (lane) => this.providersOf(lane),
      log,
    };
    this.unsubscribe = config.onChange(() => {
      for (const lane of this.lanes.values()) lane.resize();
    });
  }

  private readonly env: ConstructorParameters<typeof Lane>[1];

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

  private providersOf(lane: string): { name: string; capacity: number }[] {
    const { providers } = this.config.current();
    const names = laneProviders(lane.replace(/^video:/, ''));
    if (!names.every((name) => providers[name] !== undefined)) return [];
    return names.map((name) => ({ name, capacity: providers[name].concurrency }));
  }

  get(name: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = new Lane(name, this.env);
      lane.operatorPaused = this.operatorPaused.has(name);
      if (this.halted) lane.stop();
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /**
   * Queues a task's items (`works`, in order) in `lane` for `owner`, and answers where they
   * stand (O(log n) per question, whatever the backlog) and one promise per item: resolved
   * once it ran, or as soon as it is dropped unstarted (stopping, or `drop`): it then never
   * runs here, and its item stays pending in the store.
   */
  runBatch(
    laneName: string,
    works: ((slot: SlotGrant) => Promise<boolean>)[],
    owner: JobOwner,
  ): { jobs: Promise<void>[]; batch: LaneBatch & { readonly jobs: readonly unknown[] } } {
    const lane = this.get(laneName);
    const batch = new Batch(lane);
    const now = performance.now();
    const jobs = works.map(
      (work) =>
        new Promise<void>((resolve, reject) => {
          const job: LaneJob = {
            seq: ++this.seq,
            priority: owner.priority,
            account: owner.account,
            tag: 0,
            key: owner.key,
            cap: owner.maxConcurrent,
            affinity: owner.affinity,
            lane: laneName,
            batch,
            work,
            done: resolve,
            fail: reject,
            queuedAt: now,
            state: 'queued',
          };
          batch.jobs.push(job);
        }),
    );
    if (this.halted) for (const job of batch.jobs) job.done();
    else for (const job of batch.jobs) lane.add(job, owner.weight);
    return { jobs, batch };
  }

  /** Takes a batch's items that have not started out of their lane (its task settled): their waits end now. */
  drop(batch: LaneBatch): void {
    if (!(batch instanceof Batch)) return;
    for (const job of batch.jobs) this.get(job.lane).drop(job);
  }

  /** The lanes an operator paused, as the store holds them: their queued items wait, running ones finish. */
  setPaused(names: Iterable<string>): void {
    this.operatorPaused.clear();
    for (const name of names) this.operatorPaused.add(name);
    for (const lane of this.lanes.values()) {
      const paused = this.operatorPaused.has(lane.name);
      if (lane.operatorPaused === paused) continue;
      lane.operatorPaused = paused;
      if (!paused) lane.resume();
    }
  }

  /** Whether an operator paused `name`. */
  isPaused(name: string): boolean {
    return this.operatorPaused.has(name);
  }

  /** Whether stop() was called: no job runs any more. */
  get stopped(): boolean {
    return this.halted;
  }

  /**
   * How long an item added to `lane` now would wait for a slot: its queued items × their mean
   * item time ÷ the lane's concurrency. Before any item of the lane has finished, the longest
   * one running stands for the mean (a lower bound: nothing is assumed that was not seen), so
   * an idle or brand-new lane estimates 0.
   */
  queueDelayMs(name: string): number {
    const lane = this.lanes.get(name);
    if (!lane || lane.queued === 0) return 0;
    let perItem = lane.meanMs;
    if (perItem === undefined) {
      const now = performance.now();
      perItem = 0;
      for (const item of lane.holding) perItem = Math.max(perItem, now - item.at);
    }
    return (lane.queued * perItem) / lane.concurrency;
  }

  /**
   * Drops queued jobs that have not started (they stay pending in the store and run after a
   * restart; their promises resolve now), refuses new ones, and stops following the config.
   */
  stop(): void {
    this.halted = true;
    this.unsubscribe();
    for (const job of this.gate.all()) {
      job.state = 'gone';
      job.done();
    }
    this.gate.stop();
    for (const lane of this.lanes.values()) lane.stop();
  }

  /** Resolves when no job runs in any lane. */
  async idle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.idle()));
  }

  /**
   * What claims read per lane, cheaply (per create and per claim): items running and queued,
   * slots, and how many items it should hold queued for model affinity to choose among.
   */
  load(): Map<string, LaneLoad> {
    const out = new Map<string, LaneLoad>();
    for (const [name, lane] of this.lanes) out.set(name, loadOf(lane));
    return out;
  }

  /** One lane's load (made if it was not yet: a lane with work waiting in the store). */
  loadOf(name: string): LaneLoad {
    return loadOf(this.get(name));
  }

  /**
   * Each lane as operators see it (imgtask queues, metrics): includes a sort of its accounts, so not for every create.
   */
  stats(): Record<string, LaneStats> {
    const out: Record<string, LaneStats> = {};
    const now = performance.now();
    for (const [name, lane] of this.lanes) {
      out[name] = {
        running: lane.slots,
        queued: lane.queued,
        concurrency: lane.concurrency,
        meanItemMs: lane.meanMs ?? null,
        paused: lane.paused,
        oldestQueuedMs: lane.oldestWaitMs(now),
        topAccounts: lane.queue.topAccounts(5),
      };
    }
    return out;
  }
}
