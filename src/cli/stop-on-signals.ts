import type { Logger } from '../app/logger.js';
import type { LeftPending } from '../app/server.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const clock = (at: Date) =>
  [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');

/**
 * The last line of a stop: when it stopped, how long after the signal, and what it left pending
 * (on the file store for the next start; on a shared store for whichever process takes it).
 */
export function stoppedMessage(signal: string, tookMs: number, at: Date, left: LeftPending | null): string {
  const when = `stopped at ${clock(at)}, ${(tookMs / 1000).toFixed(1)} s after ${signal}`;
  if (!left) return when;
  if (left.items === 0 && left.tasks === 0) return `${when}; no task left pending`;
  const what = `${plural(left.items, 'item')} of ${plural(left.tasks, 'task')} left pending`;
  const them = left.items === 1 ? 'it' : 'them';
  return `${when}; ${what}: ${left.fleet ? `the working processes take ${them}, or the next start` : `${left.items === 1 ? 'it runs' : 'they run'} at the next start`}`;
}

/**
 * On the first SIGINT or SIGTERM: logs `<event>` and closes (a drain within work.shutdownGraceMs),
 * then logs when it stopped and what it left pending (`<event minus ing>ed`, e.g. server.stopped)
 * and exits 0, or 1 when closing failed. Used by `serve` and `worker`.
 */
export function stopOnSignals(logger: Logger, event: string, close: () => Promise<LeftPending | null>): void {
  const stopped = event.replace(/ing$/, 'ed');
  const stop = (signal: string) => {
    const started = Date.now();
    logger.info({ event, signal }, `${signal}: stopping`);
    close().then(
      (left) => {
        const at = new Date();
        logger.info(
          { event: stopped, signal, tookMs: at.getTime() - started, leftPending: left },
          stoppedMessage(signal, at.getTime() - started, at, left),
        );
        process.exit(0);
      },
      (err: Error) => {
        logger.error({ err }, `stop failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
