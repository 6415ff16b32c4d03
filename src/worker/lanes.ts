import PQueue from 'p-queue';
import type { ConfigSource } from '../config/source.js';

/**
 * One p-queue per lane (a provider or a task type) with its own concurrency, so slow work
 * in one lane (background removal) never holds up another (rating). A lane's concurrency is
 * `work.lanes.<lane>`, else the provider's own `concurrency`, else `work.defaultConcurrency`;
 * a config reload applies to the lanes at once.
 */
export class Lanes {
  private readonly queues = new Map<string, PQueue>();
  private readonly unsubscribe: () => void;

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

  /** Drops queued jobs that have not started (they stay pending in the store and run after a restart) and stops following the config. */
  stop(): void {
    this.unsubscribe();
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
