import type { Logger } from '../app/logger.js';

/**
 * On the first SIGINT or SIGTERM: logs `<event>` and closes (a drain within work.shutdownGraceMs),
 * then exits 0, or 1 when closing failed. Used by `serve` and `worker`.
 */
export function stopOnSignals(logger: Logger, event: string, close: () => Promise<void>): void {
  const stop = (signal: string) => {
    logger.info({ event, signal }, `${signal}: stopping`);
    close().then(
      () => process.exit(0),
      (err: Error) => {
        logger.error({ err }, `stop failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
