import type { ConfigSource } from '../config/source.js';
import type { SingletonDuties } from './intake/intake-types.js';

/**
 * The expiry sweep, then the install's housekeeping (unfinished erasures, retention), as one
 * run: what the timer (and a fleet's sweep lock) covers. Housekeeping runs even when the expiry
 * failed; its own failures are its to report.
 */
export const sweepWith =
  (sweep: () => Promise<string[]>, work: Pick<SingletonDuties, 'housekeeping'>) => async (): Promise<string[]> => {
    try {
      return await sweep();
    } finally {
      await work.housekeeping?.();
    }
  };

/**
 * Runs the expiry sweep (`sweep`, answering the tasks it expired) once at start and then every
 * `work.sweepIntervalMs` while the server runs; a config reload that changes the interval
 * reschedules it.
 */
export function startSweepTimer(
  sweep: () => Promise<string[]>,
  config: ConfigSource,
  log: (message: string) => void,
): { stop(): void } {
  const run = () =>
    sweep().then(
      (expired) => expired.length && log(`sweep: ${expired.length} task(s) expired (TASK_EXPIRED)`),
      (err: Error) => log(`sweep failed: ${err.message}`),
    );
  let interval = config.current().work.sweepIntervalMs;
  const schedule = () => {
    const timer = setInterval(run, interval);
    timer.unref();
    return timer;
  };
  void run();
  let timer = schedule();
  const unsubscribe = config.onChange((next) => {
    if (next.work.sweepIntervalMs === interval) return;
    interval = next.work.sweepIntervalMs;
    clearInterval(timer);
    timer = schedule();
  });
  return {
    stop: () => {
      unsubscribe();
      clearInterval(timer);
    },
  };
}
