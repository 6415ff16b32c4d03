import { performance } from 'node:perf_hooks';
import { FairQueue } from './fair-queue.js';
import type { KeyGate } from './key-gate.js';
import type { LaneJob, LaneView, SlotGrant, Started } from './lane-batch.js';
import { AFFINITY_WINDOW, LaneProviders, type ProviderRoom } from './lane-providers.js';

/**
 * Weight of the newest item in a lane's mean item time (an exponentially weighted mean): about the last ten items
 * count.
 */
const ITEM_TIME_WEIGHT = 0.2;

/** What a lane reads from the lanes around it. */
export interface LaneEnv {
  readonly gate: KeyGate;
  /** `work.lanes.<lane>`, else its providers' concurrency summed, else `work.defaultConcurrency`. */
  concurrencyOf(lane: string): number;
  /** The providers a lane is made of, with their concurrency (none: a lane that is no provider). */
  providersOf(lane: string): { name: string; capacity: number }[];
  log(message: string): void;
}

/**
 * One lane: slots (its concurrency), the order its queued items start in (fair-queue.ts), the
 * providers it is made of (model affinity), its item times (estimates), and a pause. An item
 * holds a slot from its start until it releases it (the engine answered) or ends, whichever is
 * first: what it does after (store, rate, record) runs outside the slot.
 */
export class Lane implements LaneView {
  readonly queue = new FairQueue<LaneJob>();
  readonly holding = new Set<Started>();
  meanMs: number | undefined;
  concurrency: number;
  /** Paused by a test or a caller (`pause()`), or by an operator (`operatorPaused`). */
  private held = false;
  operatorPaused = false;
  /** Items parked for their key's cap: queued, out of the order. */
  parkedCount = 0;
  /** Items holding a slot. */
  slots = 0;
  /** Items whose work has not ended (in a slot or past it). */
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly providers = new LaneProviders();
  /** Queued items in arrival order, for the oldest wait (started and dropped ones are passed over lazily). */
  private arrivals: LaneJob[] = [];
  private arrivalsHead = 0;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly env: LaneEnv,
  ) {
    this.concurrency = env.concurrencyOf(name);
    this.resize();
  }

  get paused(): boolean {
    return this.held || this.operatorPaused;
  }

  /** Items it should hold queued beyond its slots for model affinity to have a choice (a lane of several providers). */
  get lookahead(): number {
    return this.providers.count >= 2 ? AFFINITY_WINDOW : 0;
  }

  get queued(): number {
    return this.queue.size + this.parkedCount;
  }

  /** The config changed: slots and providers again, then start what now fits. */
  resize(): void {
    this.concurrency = this.env.concurrencyOf(this.name);
    this.providers.resize(this.env.providersOf(this.name));
    this.pump();
  }

  pause(): void {
    this.held = true;
  }

  resume(): void {
    this.held = false;
    this.pump();
  }

  rank(job: LaneJob): number | undefined {
    return job.state === 'queued' ? this.queue.rank(job) : undefined;
  }

  /** Queues an item of an account of `weight`. */
  add(job: LaneJob, weight: number): void {
    this.queue.push(job, weight);
    this.arrivals.push(job);
    this.pump();
  }

  /** An item back from parking, with its tag. */
  unparked(job: LaneJob): void {
    this.parkedCount -= 1;
    if (this.stopped) {
      job.state = 'gone';
      job.done();
      return;
    }
    job.state = 'queued';
    this.queue.insert(job);
    this.pump();
  }

  /** Takes a queued or parked item out unstarted (its task settled): its wait ends now. */
  drop(job: LaneJob): void {
    if (job.state === 'queued') this.queue.delete(job);
    else if (job.state === 'parked' && this.env.gate.drop(job)) this.parkedCount -= 1;
    else return;
    job.state = 'gone';
    job.done();
  }

  /** Seconds the oldest queued item has waited; 0 with none. */
  oldestWaitMs(now = performance.now()): number {
    while (this.arrivalsHead < this.arrivals.length) {
      const job = this.arrivals[this.arrivalsHead];
      if (job.state === 'queued' || job.state === 'parked') return now - job.queuedAt;
      this.arrivalsHead += 1;
      // Compact now and then, so the list holds about what is queued.
      if (this.arrivalsHead > 1024 && this.arrivalsHead * 2 > this.arrivals.length) {
        this.arrivals = this.arrivals.slice(this.arrivalsHead);
        this.arrivalsHead = 0;
      }
    }
    return 0;
  }

  /** Drops every queued item (they stay pending in the store) and starts nothing more. */
  stop(): void {
    this.stopped = true;
    for (const job of [...this.queue]) {
      this.queue.delete(job);
      job.state = 'gone';
      job.done();
    }
    this.arrivals = [];
    this.arrivalsHead = 0;
  }

  /** Resolves once no item's work runs in the lane. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Starts queued items while slots are free. */
  private pump(): void {
    while (!this.stopped && !this.paused && this.slots < this.concurrency) {
      const next = this.pick();
      if (!next) return;
      this.start(next.job, next.provider);
    }
  }

  /**
   * The next item and the provider it should go to (lane-providers.ts); items whose key runs its cap are parked on the
   * way.
   */
  private pick(): { job: LaneJob; provider: ProviderRoom | undefined } | undefined {
    let head = this.queue.first();
    while (head && this.env.gate.full(head)) {
      this.park(head);
      head = this.queue.first();
    }
    if (!head) return undefined;
    const { priority } = head;
    return this.providers.choose(head, (model) =>
      this.queue
        .head(AFFINITY_WINDOW)
        .find((job) => job.affinity === model && job.priority === priority && !this.env.gate.full(job)),
    );
  }

  private park(job: LaneJob): void {
    this.queue.delete(job);
    this.env.gate.park(job);
    this.parkedCount += 1;
  }

  private start(job: LaneJob, provider: ProviderRoom | undefined): void {
    this.queue.delete(job);
    this.queue.started(job);
    job.state = 'running';
    this.slots += 1;
    this.active += 1;
    this.env.gate.take(job);
    if (provider) {
      provider.running += 1;
      provider.last = job.affinity ?? provider.last;
    }
    const started: Started = { at: performance.now() };
    let released = false;
    let fleetRelease: (() => void) | undefined;
    /**
     * Frees the slot (and the key's and provider's room) once. `worked`: the item did something, so its time counts.
     */
    const release = (worked: boolean) => {
      if (released) return;
      released = true;
      this.slots -= 1;
      this.holding.delete(started);
      job.batch.onEnd(started);
      if (provider) provider.running -= 1;
      fleetRelease?.();
      this.env.gate.give(job);
      // A busy period ended: the next items start afresh, as fair queueing does.
      if (this.slots === 0 && this.queued === 0) this.queue.reset();
      if (worked) {
        const ms = performance.now() - started.at;
        this.meanMs = this.meanMs === undefined ? ms : this.meanMs + ITEM_TIME_WEIGHT * (ms - this.meanMs);
      }
      this.pump();
    };
    const slot: SlotGrant = { provider: provider?.name, release: () => release(true) };
    const finish = (worked: boolean) => {
      release(worked);
      job.state = 'gone';
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    const run = async () => {
      // A key with a fleet-wide cap asks the fleet for a slot first; refused, the item is parked and asks again
      // shortly.
      if (job.cap !== undefined && job.key !== null && this.env.gate.fleet) {
        let granted: (() => void) | null = null;
        try {
          granted = await this.env.gate.fleet.acquire(job.key, job.cap);
        } catch (err) {
          this.env.log(
            `key ${job.key}: fleet-wide slot not checked (${(err as Error).message}); the item runs on this process's count`,
          );
          granted = () => {};
        }
        if (!granted) {
          this.unstart(job, provider);
          return;
        }
        fleetRelease = granted;
      }
      this.holding.add(started);
      job.batch.onStart(started);
      let worked = false;
      try {
        worked = await job.work(slot);
        finish(worked);
        job.done();
      } catch (err) {
        finish(worked);
        job.fail(err);
      }
    };
    void run();
  }

  /** Undoes a start the fleet refused: the item is parked until its key has a slot again. */
  private unstart(job: LaneJob, provider: ProviderRoom | undefined): void {
    this.slots -= 1;
    this.active -= 1;
    if (provider) provider.running -= 1;
    // Not give(): that would let the next parked item of the key in, which the fleet refuses too.
    this.env.gate.untake(job);
    if (this.stopped) {
      job.state = 'gone';
      job.done();
    } else {
      job.state = 'parked';
      this.env.gate.parkForFleet(job);
      this.parkedCount += 1;
    }
    if (this.active === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.pump();
  }
}
