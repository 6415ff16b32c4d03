import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConfigSource } from '../../config/source.js';
import type { EventBus } from '../../services/events.js';
import type { TaskRecord } from '../../store/records.js';
import type { SharedQueueStore } from '../../store/types.js';
import type { Lanes } from '../runner/lanes.js';
import type { TaskRunner } from '../runner/task-runner.js';
import { startSweepTimer } from '../sweep-timer.js';
import { createClaimer } from './claimer.js';
import { announcer, bridgeEvents, CHANNELS, electDispatcher, POLL_MS, SWEEP_LOCK, underLock } from './fleet-signals.js';
import type { IntakeDeps, TaskIntake } from './intake.js';

/** This process's name in leases: host, pid and a random part (a pid is reused after a restart). */
const newWorkerId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * The intake of a store several processes share (PostgreSQL: `serve`, `serve --no-work` and
 * `worker` on one database). A create does not queue here: it tells every working process
 * (after its commit; the creates of one batch by one notification), and whichever has room
 * claims it; a lost notification costs at most a poll interval. Every process relays events (fleet-signals.ts); a working one also claims,
 * sweeps under the sweep lock and stands for the dispatch lock.
 */
export function createSharedIntake(shared: SharedQueueStore, deps: IntakeDeps): TaskIntake {
  const { signals } = shared;
  const { runner, config, log } = deps;
  let unbridge: (() => void) | undefined;
  let dispatcher: ReturnType<typeof electDispatcher> | undefined;
  let claiming: Awaited<ReturnType<typeof startClaiming>> | undefined;
  let sweeper: { stop(): void } | undefined;
  // The creates of one batch (or of one turn of the event loop) are announced by one notification.
  const created = announcer(signals, CHANNELS.created, { latest: true, failed: (err) => log(`created notification not sent (${err.message}); a worker's poll finds the tasks`) });
  return {
    enqueue(task, lease) {
      try {
        deps.progress.definition(task.type).lane(task.request);
      } catch (err) {
        lease?.unused();
        throw err;
      }
      // Created leased to this process: it runs here; otherwise the working processes are told.
      if (lease && claiming) claiming.adopt(task);
      else created.add(task.id);
    },
    leaseForCreate() {
      if (!claiming?.offer()) return undefined;
      const offered = claiming;
      return { owner: offered.workerId, ms: config.current().work.leaseMs, unused: () => offered.unused() };
    },
    queueDelayMs: (lane) => runner.queueDelayMs(lane),
    workerId: () => claiming?.workerId,
    async start(work) {
      unbridge = await bridgeEvents(signals, deps.events, log);
      // Notifications missed while the connection was down: live status streams read their tasks again.
      signals.onReconnect(() => deps.streams.refresh());
      if (!work) return;
      // Each settlement records its event as it happens; this finds those a crash left out, in one process at a time.
      await underLock(signals, SWEEP_LOCK, () => work.recover());
      dispatcher = electDispatcher(signals, () => work.dispatcher(), log);
      claiming = await startClaiming({ shared, runner, lanes: deps.lanes, events: deps.events, config, log });
      // The sweep runs in one process at a time across the fleet.
      const sweep = async () => {
        const outcome = await underLock(signals, SWEEP_LOCK, deps.sweep);
        return outcome.ran ? outcome.value : [];
      };
      sweeper = startSweepTimer(sweep, config, log);
    },
    async close(graceMs) {
      sweeper?.stop();
      if (claiming) await claiming.close(() => runner.close(graceMs));
      else await runner.close(graceMs);
      await dispatcher?.close(graceMs);
      unbridge?.();
    },
  };
}

/**
 * How many more tasks this process takes now: its slots (the widest lane's concurrency, at least
 * `work.defaultConcurrency`) and as many again queued behind them, so a lane does not idle while
 * the next claim is on its way (as the webhook dispatcher reads ahead), less what it holds: the
 * items queued or running in its lanes, or the tasks it holds if more (a task being prepared has
 * no item in a lane yet).
 */
function laneCapacity(lanes: Lanes, config: ConfigSource): (held: number) => number {
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
async function startClaiming(options: { shared: SharedQueueStore; runner: Pick<TaskRunner, 'run'>; lanes: Lanes; events: EventBus; config: ConfigSource; log: (message: string) => void }) {
  const { shared, config } = options;
  const workerId = newWorkerId();
  const leaseMs = () => config.current().work.leaseMs;
  // Tasks held here that this process settled: a settled task is never claimed again, so its
  // lease needs no write (and its release no round trip). Bounded by the tasks held.
  const settledHere = new Set<string>();
  const offSettled = options.events.on('task:settled', ({ task }) => {
    if (claimer.holds(task.id)) settledHere.add(task.id);
  });
  const claimer = createClaimer({
    leases: {
      claim: (limit) => shared.leases.claim(workerId, limit, leaseMs()),
      renew: (ids) => shared.leases.renew(workerId, ids, leaseMs()),
      release: async (id) => {
        if (!settledHere.delete(id)) await shared.leases.release(workerId, id);
      },
    },
    run: (task) => options.runner.run(task),
    capacity: laneCapacity(options.lanes, config),
    leaseMs,
    pollMs: POLL_MS,
    log: options.log,
  });
  let open = true;
  await shared.signals.listen(CHANNELS.created, () => open && claimer.wake());
  shared.signals.onReconnect(() => open && claimer.wake());
  claimer.start();
  return {
    workerId,
    offer: () => open && claimer.offer(),
    adopt: (task: TaskRecord) => claimer.adopt(task),
    unused: () => claimer.unused(),
    async close(stopRunner: () => Promise<void>) {
      open = false;
      offSettled();
      await claimer.close(stopRunner);
    },
  };
}
