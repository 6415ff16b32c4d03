import { JobForgotten, ServerUnreachable } from './failures.js';

/** Where a ComfyUI server's outages are logged: its going down once (warn), its coming back once (info). */
export type ComfyLog = (level: 'warn' | 'info', message: string) => void;

/** How often a server that is down is asked again: `firstMs`, doubling, at most `maxMs`. */
export interface ProbeBackoff {
  firstMs: number;
  maxMs: number;
}

/** Reaches past a typical restart (10–15 s) in a few probes, and asks a server that stays down every 5 s. */
export const PROBE_BACKOFF: ProbeBackoff = { firstMs: 500, maxMs: 5000 };
/** How long one probe may take. */
const PROBE_TIMEOUT_MS = 5000;

export interface OutageOptions {
  name: string;
  /** One cheap request (GET /system_stats): resolves when the server answers, rejects when it does not. */
  probe(signal: AbortSignal): Promise<unknown>;
  log?: ComfyLog;
  backoff?: ProbeBackoff;
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

/** A ComfyUI server's outage state: down, probed with backoff, back. */
export interface Outage {
  /** True while the server is known to be down; probes it in the background at the backoff's pace. */
  down(): boolean;
  /** A request failed: a server that could not be reached is down from now on. */
  failed(err: unknown): void;
  /** A request was answered: the server is up. */
  answered(): void;
  /**
   * Returns at once when the server is not known to be down; else probes it (backoff growing
   * to `maxMs`) until it answers. Gives up after `boundMs` with the cause and how long it waited
   * (not retried: the server was waited for as long as a job may take), or at once when `signal`
   * aborts (with its reason).
   */
  waitUntilUp(signal: AbortSignal, boundMs: number): Promise<void>;
}

/**
 * Whether one ComfyUI server is down, and waiting for it to come back. A request that could not
 * reach the server marks it down (logged once, with the cause); a probe that it answers marks it
 * up again (logged once, with how long it was down). While it is down, asking `down()` probes it
 * in the background now and then, so failover sees it back without sending it an item first.
 */
export function createOutage(options: OutageOptions): Outage {
  const backoff = options.backoff ?? PROBE_BACKOFF;
  let down: { since: number; reason: string } | undefined;
  let probing: Promise<boolean> | undefined;
  let nextProbeAt = 0;
  let interval = backoff.firstMs;

  const markDown = (reason: string) => {
    if (down) {
      down.reason = reason;
      return;
    }
    down = { since: Date.now(), reason };
    nextProbeAt = Date.now() + backoff.firstMs;
    interval = backoff.firstMs;
    options.log?.(
      'warn',
      `comfyui: ${options.name} is down (${reason}); its items wait for it, or go to their model's other servers`,
    );
  };
  const markUp = () => {
    if (!down) return;
    const ms = Date.now() - down.since;
    down = undefined;
    options.log?.('info', `comfyui: ${options.name} is back, after ${seconds(ms)} s down`);
  };
  /** One probe at a time, shared by every waiter: true when the server answered. */
  const probe = (): Promise<boolean> => {
    probing ??= options
      .probe(AbortSignal.timeout(PROBE_TIMEOUT_MS))
      .then(
        () => {
          markUp();
          return true;
        },
        (err: Error) => {
          // Answered, but not well (an error status, no answer in time): said without the server's name, which the
          // messages carry already.
          markDown(err instanceof ServerUnreachable ? err.reason : err.message.replace(`${options.name}: `, ''));
          return false;
        },
      )
      .finally(() => {
        probing = undefined;
      });
    return probing;
  };

  return {
    /** True while the server is known to be down; probes it in the background at the backoff's pace. */
    down(): boolean {
      if (down && !probing && Date.now() >= nextProbeAt) {
        nextProbeAt = Date.now() + interval;
        interval = Math.min(interval * 2, backoff.maxMs);
        void probe();
      }
      return down !== undefined;
    },
    /** A request failed: a server that could not be reached is down from now on. */
    failed(err: unknown): void {
      if (err instanceof ServerUnreachable) markDown(err.reason);
    },
    /** A request was answered: the server is up. */
    answered: markUp,

    /**
     * Returns at once when the server is not known to be down; else probes it (backoff growing
     * to `maxMs`) until it answers. Gives up after `boundMs` with the cause and how long it waited
     * (not retried: the server was waited for as long as a job may take), or at once when `signal`
     * aborts (with its reason).
     */
    async waitUntilUp(signal: AbortSignal, boundMs: number): Promise<void> {
      if (!down) return;
      const started = Date.now();
      let wait = backoff.firstMs;
      for (;;) {
        signal.throwIfAborted();
        if (await untilAborted(probe(), signal)) return;
        const left = boundMs - (Date.now() - started);
        if (left <= 0) {
          const reason = down?.reason ?? 'no answer';
          throw new ServerUnreachable(
            `${options.name} cannot be reached (${reason}); waited ${seconds(Date.now() - started)} s`,
            reason,
            { retryable: false },
          );
        }
        await pause(Math.min(wait, left), signal);
        wait = Math.min(wait * 2, backoff.maxMs);
      }
    },
  };
}

/** `work`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err);
      },
    );
  });
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (the timer cleared). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** A job forgotten by a restart is queued again this many times at most, within its `timeoutMs`. */
const MAX_RERUNS = 3;

/**
 * Runs a job (`run`, given the time it has left) and, when the server forgot it (a restart
 * empties ComfyUI's queue and history), waits for the server to be back and queues it again,
 * all within one `timeoutMs` and the item's signal.
 */
export async function rerunWhenForgotten<T>(
  outage: Outage,
  signal: AbortSignal,
  timeoutMs: number,
  run: (timeoutMs: number) => Promise<T>,
  log?: ComfyLog,
): Promise<T> {
  const started = Date.now();
  for (let rerun = 0; ; rerun++) {
    try {
      return await run(timeoutMs - (Date.now() - started));
    } catch (err) {
      const left = timeoutMs - (Date.now() - started);
      if (!(err instanceof JobForgotten) || signal.aborted || rerun >= MAX_RERUNS || left < 1) throw err;
      log?.('info', `comfyui: ${err.message}: queued again`);
      await outage.waitUntilUp(signal, left);
    }
  }
}
