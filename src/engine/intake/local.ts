import type { Store } from '../../store/store-contract.js';
import { localQueues } from '../queue-views.js';
import { startSweepTimer, sweepWith } from '../sweep-timer.js';
import type { Dispatcher, IntakeDeps, TaskIntake } from './intake-types.js';

/**
 * The intake of a store one process owns (the file store): a create queues into this
 * process's runner at once; a working start records what a crash left out, starts the one
 * dispatcher, resumes the tasks found pending (oldest first) and starts the sweep timer.
 */
export function createLocalIntake(store: Pick<Store, 'tasks'>, deps: IntakeDeps): TaskIntake {
  const { runner, config, log } = deps;
  let dispatcher: Dispatcher | undefined;
  let sweeper: { stop(): void } | undefined;
  return {
    enqueue: (task) => runner.enqueue(task),
    // One process owns the store: every task it creates runs here, with no lease.
    leaseForCreate: () => undefined,
    queueDelayMs: (lane) => runner.queueDelayMs(lane),
    workerId: () => undefined,
    queues: async (pauses) => localQueues(deps.lanes.stats(), pauses),
    async start(work) {
      if (!work) return;
      await work.recover();
      dispatcher = work.dispatcher();
      dispatcher.start();
      const pending = await store.tasks.listPending();
      // A deadline survives a restart: one that passed meanwhile ends its task at once.
      for (const task of pending) if (task.deadlineAt !== undefined) deps.deadlines.add(task.id, task.deadlineAt);
      runner.resume(pending);
      sweeper = startSweepTimer(sweepWith(deps.sweep, work), config, log);
    },
    async close(graceMs) {
      sweeper?.stop();
      await runner.close(graceMs);
      await dispatcher?.close(graceMs);
    },
  };
}
