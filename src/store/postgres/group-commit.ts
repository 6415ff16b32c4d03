/** One member's answer from a batch: its value, or the error that member (alone) gets. */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface GroupCommitOptions<I, O> {
  /**
   * Runs one batch and answers one outcome per item, in order. A rejection answers every item
   * of the batch with it (the database out of reach: every member gets STORE_UNAVAILABLE).
   */
  run(items: I[]): Promise<Outcome<O>[]>;
  /** The most items in one batch (the statements' arrays stay a sensible size). */
  maxBatch: number;
  /**
   * Items with the same key never share a batch: the second waits for the next one (two
   * settlements of one task, which one statement could not tell apart). None: any may share.
   */
  key?: (item: I) => string;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/**
 * Group commit: what is submitted while a batch is in flight goes together in the next one, so
 * a burst costs one transaction (one commit, one round trip) per batch instead of one per item,
 * and the batch grows with the load instead of the queue. One batch in flight at a time; the
 * first item after a quiet spell waits only for the rest of its turn of the event loop (what
 * arrived in the same turn joins it).
 */
export function groupCommit<I, O>(options: GroupCommitOptions<I, O>) {
  const queue: Waiting<I, O>[] = [];
  let running = false;
  let scheduled = false;

  /** The next batch: up to maxBatch items in arrival order, keys distinct; the rest stay queued in order. */
  function take(): Waiting<I, O>[] {
    if (!options.key) return queue.splice(0, options.maxBatch);
    const keys = new Set<string>();
    const batch: Waiting<I, O>[] = [];
    const left: Waiting<I, O>[] = [];
    for (const waiting of queue) {
      const key = options.key(waiting.item);
      if (batch.length < options.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(waiting);
      } else left.push(waiting);
    }
    queue.length = 0;
    queue.push(...left);
    return batch;
  }

  async function flush(): Promise<void> {
    scheduled = false;
    if (running || queue.length === 0) return;
    running = true;
    const batch = take();
    try {
      const outcomes = await options.run(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) waiting.resolve(outcome.value);
        else waiting.reject(outcome ? outcome.error : new Error('the batch gave this item no answer'));
      });
    } catch (err) {
      for (const waiting of batch) waiting.reject(err);
    } finally {
      running = false;
      if (queue.length > 0) void flush();
    }
  }

  return {
    /** Queues `item` for the next batch; resolves or rejects with its own outcome once that batch has committed. */
    submit(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!running && !scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
