import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConfigSource } from '../config/source.js';
import { createClaimer } from '../engine/intake/claimer.js';
import type { LaneBacklog } from '../engine/load-limits.js';
import type { Lanes } from '../engine/runner/lanes.js';
import type { TaskProgress } from '../engine/task-progress.js';
import type { EventBus } from '../services/events.js';
import type { TaskQueue } from '../services/ports.js';
import type { Store, StoreSignals } from '../store/types.js';

/**
 * Many processes on one PostgreSQL database: `serve`, `serve --no-work` and `worker`. What they
 * tell each other goes through the store's signals (NOTIFY/LISTEN on a dedicated connection):
 *
 * - a create commits, then notifies `imgtask_task_created`; working processes wake and claim;
 * - a settlement notifies `imgtask_task_settled` (the task id); every process relays it to its
 *   sync answers waiting on that task (`task:settled-elsewhere`) and to its runner, which aborts
 *   the items it still runs for that task (a cancel);
 * - an item recorded while others run notifies `imgtask_task_item` (`<task id> <items finished>`);
 *   every process relays it to its live status streams of that task (`task:item-elsewhere`);
 * - deliveries falling due notify `imgtask_delivery_due`, which wakes the one dispatcher.
 *
 * The expiry sweep and the webhook dispatcher run in one process at a time, each under an
 * advisory lock.
 */
export const CHANNELS = { created: 'imgtask_task_created', settled: 'imgtask_task_settled', item: 'imgtask_task_item', deliveryDue: 'imgtask_delivery_due' } as const;
export const SWEEP_LOCK = 0x1a6_7a5d;
export const DISPATCH_LOCK = 0x1a6_7a5e;
/** How often a working process claims without being woken, and a standby dispatcher tries for the lock. */
export const POLL_MS = 2000;

/** This process's name in leases: host, pid and a random part (a pid is reused after a restart). */
export const newWorkerId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * The task queue of a process on a shared database: a create does not queue here, it tells every
 * working process (after its commit), and whichever has room claims it. The lane is resolved
 * now, so an unknown one still fails the create (ENQUEUE_FAILED). A lost notification costs at
 * most a poll interval.
 */
export function notifyingQueue(signals: StoreSignals, progress: Pick<TaskProgress, 'definition'>, backlog: LaneBacklog, log: (message: string) => void): TaskQueue & LaneBacklog {
  return {
    enqueue(task) {
      progress.definition(task.type).lane(task.request);
      signals.notify(CHANNELS.created, task.id).catch((err: Error) => log(`task ${task.id}: created notification not sent (${err.message}); a worker's poll finds it`));
    },
    queueDelayMs: (lane) => backlog.queueDelayMs(lane),
  };
}

/**
 * Relays events between processes: settlements made here are announced, those made anywhere
 * wake the sync answers waiting here; deliveries due here or anywhere wake the dispatcher.
 */
export async function bridgeEvents(signals: StoreSignals, events: EventBus, log: (message: string) => void): Promise<() => void> {
  let relaying = false;
  const announce = (channel: string, payload: string) => signals.notify(channel, payload).catch((err: Error) => log(`postgres: ${channel} not sent (${err.message})`));
  const off = [
    events.on('task:settled', ({ task }) => announce(CHANNELS.settled, task.id)),
    events.on('task:item', ({ task }) => announce(CHANNELS.item, `${task.id} ${task.items.filter((item) => item.status !== 'pending').length}`)),
    events.on('delivery:due', () => {
      if (!relaying) void announce(CHANNELS.deliveryDue, '');
    }),
  ];
  let open = true;
  await signals.listen(CHANNELS.settled, (taskId) => open && events.emit('task:settled-elsewhere', { taskId }));
  await signals.listen(CHANNELS.item, (payload) => {
    const [taskId, finished] = payload.split(' ');
    if (open && taskId) events.emit('task:item-elsewhere', { taskId, finished: Number(finished) || 0 });
  });
  await signals.listen(CHANNELS.deliveryDue, () => {
    if (!open) return;
    // Emitted here for the local dispatcher; not announced again.
    relaying = true;
    try {
      events.emit('delivery:due', {});
    } finally {
      relaying = false;
    }
  });
  return () => {
    open = false;
    for (const unsubscribe of off) unsubscribe();
  };
}

/**
 * How many more tasks this process takes now: its slots (the widest lane's concurrency, at least
 * `work.defaultConcurrency`) and as many again queued behind them, so a lane does not idle while
 * the next claim is on its way (as the webhook dispatcher reads ahead), less what it holds: the
 * items queued or running in its lanes, or the tasks it holds if more (a task being prepared has
 * no item in a lane yet).
 */
export function laneCapacity(lanes: Lanes, config: ConfigSource): (held: number) => number {
  return (held) => {
    const { work } = config.current();
    let slots = work.defaultConcurrency;
    let busy = 0;
    for (const lane of Object.values(lanes.stats())) {
      slots = Math.max(slots, lane.concurrency);
      busy += lane.running + lane.queued;
    }
    return Math.max(0, 2 * slots - Math.max(busy, held));
  };
}

/** Claims tasks for this process's runner: on each created notification, after a reconnection, and every POLL_MS. */
export async function startClaiming(options: {
  store: Store;
  signals: StoreSignals;
  runner: { run(task: import('../store/records.js').TaskRecord): Promise<void> };
  lanes: Lanes;
  config: ConfigSource;
  log: (message: string) => void;
}) {
  const { store, config } = options;
  const workerId = newWorkerId();
  const leaseMs = () => config.current().work.leaseMs;
  const claimer = createClaimer({
    leases: {
      claim: (limit) => store.tasks.claim(workerId, limit, leaseMs()),
      renew: (ids) => store.tasks.renewLeases(workerId, ids, leaseMs()),
      release: (id) => store.tasks.release(workerId, id),
    },
    run: (task) => options.runner.run(task),
    capacity: laneCapacity(options.lanes, config),
    leaseMs,
    pollMs: POLL_MS,
    log: options.log,
  });
  let open = true;
  await options.signals.listen(CHANNELS.created, () => open && claimer.wake());
  options.signals.onReconnect(() => open && claimer.wake());
  claimer.start();
  return {
    workerId,
    held: claimer.held,
    async close(stopRunner: () => Promise<void>) {
      open = false;
      await claimer.close(stopRunner);
    },
  };
}

/** Runs `fn` only while this process holds the advisory lock `key`; false (not run) when another holds it. */
export async function underLock<T>(signals: StoreSignals, key: number, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
  if (!(await signals.tryLock(key))) return { ran: false };
  try {
    return { ran: true, value: await fn() };
  } finally {
    await signals.unlock(key).catch(() => undefined);
  }
}

/**
 * One webhook dispatcher across the processes: each working process tries for the dispatch lock
 * every POLL_MS; the one holding it runs a dispatcher, the others stand by. The lock goes with
 * its connection: a process that dies (or whose connection breaks) gives it up, and another
 * takes over within a poll interval.
 */
export function electDispatcher(signals: StoreSignals, make: () => { start(): void; close(graceMs: number): Promise<void> }, log: (message: string) => void) {
  let active: ReturnType<typeof make> | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async () => {
    if (closed) return;
    try {
      if (await signals.tryLock(DISPATCH_LOCK)) {
        if (!active && !closed) {
          active = make();
          active.start();
          log('webhooks: this process dispatches deliveries');
        }
      }
    } catch (err) {
      log(`webhooks: dispatch lock not checked (${(err as Error).message})`);
    } finally {
      if (!closed) {
        timer = setTimeout(() => void attempt(), POLL_MS);
        timer.unref();
      }
    }
  };
  signals.onReconnect(() => {
    // The lock went with the old connection: stop sending until it is ours again.
    const previous = active;
    active = undefined;
    void previous?.close(0);
  });
  void attempt();
  return {
    dispatching: () => active !== undefined,
    async close(graceMs: number) {
      closed = true;
      clearTimeout(timer);
      await active?.close(graceMs);
      active = undefined;
      await signals.unlock(DISPATCH_LOCK).catch(() => undefined);
    },
  };
}
