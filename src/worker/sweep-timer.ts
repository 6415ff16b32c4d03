import type { TaskService } from '../services/tasks.js';

/** Runs the expiry sweep every `intervalMs` while the server runs (and once at start). */
export function startSweepTimer(tasks: TaskService, intervalMs: number, log: (message: string) => void): { stop(): void } {
  const run = () =>
    tasks.sweep().then(
      (expired) => expired.length && log(`sweep: ${expired.length} task(s) expired (TASK_EXPIRED)`),
      (err: Error) => log(`sweep failed: ${err.message}`),
    );
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
