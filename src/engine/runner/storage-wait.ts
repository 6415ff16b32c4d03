import { isOutOfSpace } from '../../domain/storage-full.js';
import { abortableSleep } from './retry.js';

/** The cap of the doubling wait between tries of a step refused for lack of space. */
const MAX_WAIT_MS = 30_000;

export interface StorageWaitOptions {
  /** Aborts the waiting (the runner stops): the step's work stays pending for the next start. */
  signal: AbortSignal;
  /** Checked after each wait: false when the work is no longer wanted (its task settled meanwhile). */
  wanted: () => Promise<boolean>;
  /** The first wait, doubled after each refusal up to 30 s. */
  firstMs: number;
  /** Told of the first refusal only (one log line per wait, not per try). */
  onRefused: (err: Error) => void;
}

/** Waits the `tries`-th pause (firstMs, doubling, at most 30 s); false when `signal` aborted meanwhile. */
export async function pauseForSpace(tries: number, firstMs: number, signal: AbortSignal): Promise<boolean> {
  await abortableSleep(Math.min(MAX_WAIT_MS, firstMs * 2 ** Math.min(tries, 20)), signal);
  return !signal.aborted;
}

/**
 * Runs `step`, and again while it fails for lack of space (the store refusing writes, a full
 * disk under a blob): what the step records or stores stays pending meanwhile, and is never
 * failed with a code of its own. Resolves `{ value }`, or null once the runner stops or the
 * work is no longer wanted.
 */
export async function whileStorageFull<T>(
  step: () => Promise<T>,
  options: StorageWaitOptions,
): Promise<{ value: T } | null> {
  for (let tries = 0; ; tries++) {
    try {
      return { value: await step() };
    } catch (err) {
      if (!isOutOfSpace(err)) throw err;
      if (options.signal.aborted) return null;
      if (tries === 0) options.onRefused(err as Error);
      if (!(await pauseForSpace(tries, options.firstMs, options.signal)) || !(await options.wanted())) return null;
    }
  }
}
