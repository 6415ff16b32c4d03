import PQueue from 'p-queue';

/**
 * One p-queue per lane (a provider or a task type) with its own concurrency, so slow work
 * in one lane (background removal) never holds up another (rating).
 */
export class Lanes {
  private readonly queues = new Map<string, PQueue>();
  constructor(private readonly concurrencyOf: (lane: string) => number) {}

  get(lane: string): PQueue {
    let queue = this.queues.get(lane);
    if (!queue) this.queues.set(lane, (queue = new PQueue({ concurrency: this.concurrencyOf(lane) })));
    return queue;
  }

  /** Applies changed concurrency settings to the lanes that exist (config reload). */
  refresh(): void {
    for (const [lane, queue] of this.queues) queue.concurrency = this.concurrencyOf(lane);
  }

  /** Drops queued jobs that have not started; they stay pending in the store and run after a restart. */
  clearQueued(): void {
    for (const queue of this.queues.values()) queue.clear();
  }

  /** Resolves when no job runs in any lane. */
  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.onIdle()));
  }

  stats(): Record<string, { running: number; queued: number; concurrency: number }> {
    const out: Record<string, { running: number; queued: number; concurrency: number }> = {};
    for (const [lane, queue] of this.queues) out[lane] = { running: queue.pending, queued: queue.size, concurrency: queue.concurrency };
    return out;
  }
}
