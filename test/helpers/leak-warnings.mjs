// Loaded into every test process by `npm test`: warnings that point at a leak (listeners piling
// up on a signal or emitter, a file handle left to the garbage collector) fail the run.
// Plain JavaScript on purpose: worker threads inherit `--import` flags, and a worker (the embedded
// models run in one) cannot load a .ts preload before tsx's hooks reach its thread.
import { isMainThread } from 'node:worker_threads';

const LEAKS = /MaxListenersExceededWarning|Closing file descriptor|Closing a FileHandle object on garbage collection/;

if (isMainThread) {
  process.on('warning', (warning) => {
    if (!LEAKS.test(`${warning.name}: ${warning.message}`)) return;
    process.exitCode = 1;
    process.stderr.write(`a leak warning fails this test file: ${warning.stack ?? warning.message}\n`);
  });
}
