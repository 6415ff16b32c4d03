import type { LivePreview } from '../../../domain/media-types.js';

/**
 * What a job is run with: the items' own, or a shared run's (the signal of all its items, progress and previews to
 * each).
 */
export interface RunHooks {
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
  onPreview?: (preview: LivePreview) => void;
}

/**
 * How long a finished run waits for items that have not taken their output yet (one queued behind other work): later,
 * one starts the run again.
 */
const LINGER_MS = 10 * 60_000;

interface SharedRun<T> {
  result: Promise<T>;
  controller: AbortController;
  /** Items awaiting the result now. */
  waiting: Set<RunHooks>;
  /** Outputs handed over so far, of `outputs`. */
  taken: Set<number>;
  outputs: number;
  settled: boolean;
  linger?: NodeJS.Timeout;
}

/** Rejects with the signal's reason when it aborts; `off` stops listening. */
function whenAborted(signal: AbortSignal): { promise: Promise<never>; off: () => void } {
  let off = () => {};
  const promise = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return fail();
    signal.addEventListener('abort', fail, { once: true });
    off = () => signal.removeEventListener('abort', fail);
  });
  return { promise, off };
}

/**
 * Runs of a workflow shared by the items they make (docs/comfyui.md#every-output): the first
 * item of a run key starts the job, the others await the same result, and each takes its own
 * output. A run is forgotten once every output was taken, when it fails in a way another try may
 * pass (each waiting item fails with it; a retry starts a new run its siblings join), or
 * LINGER_MS after it ended. A failure that would recur (`keepsFailure`) is kept like a result, so
 * an item that comes late fails with it instead of running the graph again. Its job is aborted
 * only when every item awaiting it was (a cancel, a deadline).
 */
export function createSharedRuns<T>(lingerMs = LINGER_MS, keepsFailure: (err: unknown) => boolean = () => false) {
  const runs = new Map<string, SharedRun<T>>();
  const forget = (key: string, run: SharedRun<T>) => {
    clearTimeout(run.linger);
    if (runs.get(key) === run) runs.delete(key);
  };

  function start(key: string, outputs: number, job: (hooks: RunHooks) => Promise<T>): SharedRun<T> {
    const controller = new AbortController();
    const waiting = new Set<RunHooks>();
    const hooks: RunHooks = {
      signal: controller.signal,
      onProgress: (fraction) => {
        for (const item of waiting) item.onProgress?.(fraction);
      },
      onPreview: (preview) => {
        for (const item of waiting) item.onPreview?.(preview);
      },
    };
    const run: SharedRun<T> = { result: job(hooks), controller, waiting, taken: new Set(), outputs, settled: false };
    const linger = () => {
      run.settled = true;
      if (runs.get(key) !== run) return;
      run.linger = setTimeout(() => forget(key, run), lingerMs);
      run.linger.unref();
    };
    run.result.then(linger, (err: unknown) => {
      if (keepsFailure(err)) return linger();
      run.settled = true;
      forget(key, run);
    });
    runs.set(key, run);
    return run;
  }

  return {
    /**
     * The result of run `key` for the item `hooks` belong to, which takes output `output` of `outputs`; `job` starts
     * the run when none is under way.
     */
    async join(
      run: { key: string; output: number; outputs: number },
      hooks: RunHooks,
      job: (hooks: RunHooks) => Promise<T>,
    ): Promise<T> {
      hooks.signal.throwIfAborted();
      const shared = runs.get(run.key) ?? start(run.key, run.outputs, job);
      shared.waiting.add(hooks);
      const aborted = whenAborted(hooks.signal);
      const take = () => {
        shared.taken.add(run.output);
        if (shared.taken.size >= shared.outputs) forget(run.key, shared);
      };
      try {
        const result = await Promise.race([shared.result, aborted.promise]);
        take();
        return result;
      } catch (err) {
        // A kept failure is this item's outcome, as a result would be.
        if (shared.settled && !hooks.signal.aborted && keepsFailure(err)) take();
        throw err;
      } finally {
        aborted.off();
        shared.waiting.delete(hooks);
        // Nobody waits for the job any more: off the server, and the next item starts anew.
        if (!shared.settled && shared.waiting.size === 0) {
          forget(run.key, shared);
          shared.controller.abort(hooks.signal.reason);
        }
      }
    },
    /** Runs under way or waiting for their other outputs (tests). */
    size: () => runs.size,
  };
}
