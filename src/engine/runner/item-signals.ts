/**
 * The runner's stop, and the abort signal of each piece of work it runs (an item, a task's
 * prepare): one of its own per piece, aborted when the runner stops or its task settles.
 */
export function createItemSignals() {
  const stopping = new AbortController();
  /**
   * What is told when the runner stops: each task waiting for its items, each running item's
   * abort. A Set, not listeners on `stopping.signal`: EventTarget checks each new listener
   * against all it holds, so one per queued task made every create cost as much as the backlog.
   */
  const onStop = new Set<() => void>();
  /** The signals of the items running now, per task: a task settled under them (cancelled) aborts them. */
  const running = new Map<string, Set<AbortController>>();

  const whenStopping = (fn: () => void): (() => void) => {
    onStop.add(fn);
    return () => onStop.delete(fn);
  };

  return {
    /** Aborted once the runner stops. */
    stopSignal: stopping.signal,
    whenStopping,

    /**
     * Runs `work` with a signal of its own that aborts when the runner stops or its task settles
     * (cancelled) meanwhile: every fetch and provider call the work makes takes it, so an abort
     * closes them at once. Whatever a handler hangs on that signal goes with the item, and the
     * runner's stop holds one entry per running item, removed when the item ends.
     */
    async withItemSignal<T>(taskId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const item = new AbortController();
      if (stopping.signal.aborted) item.abort();
      const forget = whenStopping(() => item.abort());
      const ofTask = running.get(taskId) ?? new Set();
      running.set(taskId, ofTask.add(item));
      try {
        return await work(item.signal);
      } finally {
        forget();
        ofTask.delete(item);
        if (ofTask.size === 0 && running.get(taskId) === ofTask) running.delete(taskId);
      }
    },

    /** The task settled (cancelled) while its items ran: each is aborted. */
    abortTask(taskId: string): void {
      for (const controller of running.get(taskId) ?? [])
        controller.abort(new Error(`task ${taskId} settled (cancelled) while this item ran`));
    },

    /** Stops: aborts every running item and tells each task waiting for its items. */
    stop(): void {
      stopping.abort();
      for (const fn of [...onStop]) fn();
      onStop.clear();
    },
  };
}
