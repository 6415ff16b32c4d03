import { isOutOfSpace } from '../../domain/storage-full.js';
import { ProviderError } from '../../domain/task-status.js';

/**
 * Anything thrown by a driver, as a ProviderError; an unexpected error is UNKNOWN_ERROR, not
 * retried, and keeps what was thrown as its cause: the client sees no internals, the log does.
 */
function asProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  return new ProviderError('UNKNOWN_ERROR', 'the work failed unexpectedly', { retryable: false, cause: err });
}

/** Capped exponential backoff with ±20% jitter: base, 2×base, 4×base … at most 30 s. */
function backoffMs(attempt: number, baseMs: number): number {
  const plain = Math.min(30_000, baseMs * 2 ** (attempt - 1));
  return Math.round(plain * (0.8 + Math.random() * 0.4));
}

export interface RetryOptions {
  maxAttempts: number;
  /** The backoff base, read at each retry (a config reload applies to the next one). */
  baseMs: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
  /** Checked before each retry; false stops retrying (the task was settled meanwhile). */
  shouldContinue: () => Promise<boolean>;
}

/**
 * Runs `attempt` until it succeeds, fails with a code that is not retryable, or uses up its
 * attempts; the last failure is the one reported. Each attempt learns its number, so a
 * provider list can be walked across attempts (failover). A lack of space (a full disk under
 * the blob it stores) is no failure of the item: it is thrown, for the runner to keep the item
 * pending and run it again once space is back.
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions,
): Promise<{ ok: true; value: T; attempts: number } | { ok: false; error: ProviderError; attempts: number }> {
  for (let n = 1; ; n++) {
    try {
      return { ok: true, value: await attempt(n), attempts: n };
    } catch (err) {
      if (isOutOfSpace(err)) throw err;
      const error = asProviderError(err);
      if (!error.retryable || n >= options.maxAttempts || options.signal.aborted)
        return { ok: false, error, attempts: n };
      await options.sleep(backoffMs(n, options.baseMs()), options.signal);
      if (!(await options.shouldContinue())) return { ok: false, error, attempts: n };
    }
  }
}

/** Waits `ms`, or less if `signal` aborts; either way its abort listener is gone afterwards. */
export const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
