import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ConfigSource } from '../../config/source.js';
import type { EventBus } from '../../services/event-bus.js';
import type { TaskRecord } from '../../store/records.js';
import type { ClaimWant, SharedQueueStore } from '../../store/store-contract.js';
import { fleetQueues } from '../queue-views.js';
import type { Lanes } from '../runner/lanes.js';
import type { TaskRunner } from '../runner/task-runner.js';
import { startSweepTimer, sweepWith } from '../sweep-timer.js';
import { createClaimer } from './claimer.js';
import {
  announcer,
  bridgeEvents,
  CHANNELS,
  DEADLINE_LOCK,
  electDispatcher,
  POLL_MS,
  SWEEP_LOCK,
  underLock,
} from './fleet-signals.js';
import type { IntakeDeps, TaskIntake } from './intake-types.js';

/** The mark of a created notification's lane where a task of a raised priority was created. */
const URGENT = 'p';

/**
 * How often a working process looks for deadlines passed in the fleet (each process also keeps its own tasks' on a
 * timer).
 */
const DEADLINE_POLL_MS = 1000;

/** This process's name in leases: host, pid and a random part (a pid is reused after a restart). */
const newWorkerId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * The intake of a store several processes share (PostgreSQL: `serve`, `serve --no-work` and
 * `worker` on one database). A create does not queue here: it tells every working process
 * (after its commit; the creates of one batch by one notification), and whichever has room
 * claims it; a lost notification costs at most a poll interval. Every process relays events (fleet-signals.ts); a
 * working one also claims,
 * sweeps under the sweep lock and stands for the dispatch lock.
 */
export function createSharedIntake(shared: SharedQueueStore, deps: IntakeDeps): TaskIntake {
  const { signals } = shared;
  const { runner, config, log } = deps;
  let unbridge: (() => void) | undefined;
  let dispatcher: ReturnType<typeof electDispatcher> | undefined;
  let claiming: Awaited<ReturnType<typeof startClaiming>> | undefined;
  let sweeper: { stop(): void } | undefined;
  let deadlinePoll: NodeJS.Timeout | undefined;
  // The creates of one batch (or of one turn of the event loop) are announced by one notification, naming their lanes.
  const created = announcer(signals, CHANNELS.created, {
    separator: '\n',
    distinct: true,
    failed: (err) => log(`created notification not sent (${err.message}); a worker's poll finds the tasks`),
  });
  const laneOf = (task: TaskRecord) => deps.settlement.definition(task.type).lane(task.request);
  return {
    enqueue(task, lease) {
      let lane: string;
      try {
        lane = laneOf(task);
      } catch (err) {
        lease?.unused();
        throw err;
      }
      // Created leased to this process: it runs here; otherwise the working processes are told.
      if (lease && claiming) claiming.adopt(task, lane);
      else created.add((task.priority ?? 0) > 0 ? `${lane}\t${URGENT}` : lane);
    },
    leaseForCreate(lane) {
      if (!claiming?.offer(lane)) return undefined;
      const offered = claiming;
      return { owner: offered.workerId, ms: config.current().work.leaseMs, unused: () => offered.unused(lane) };
    },
    queueDelayMs: (lane) => runner.queueDelayMs(lane),
    workerId: () => claiming?.workerId,
    queues: async (pauses) =>
      fleetQueues(
        await shared.lanes.figures(claiming?.workerId),
        pauses,
        claiming ? deps.lanes.stats() : {},
        Date.now(),
      ),
    async start(work) {
      unbridge = await bridgeEvents(signals, deps.events, log);
      // Notifications missed while the connection was down: live status streams read their tasks again.
      signals.onReconnect(() => deps.streams.refresh());
      if (!work) return;
      // Each settlement records its event as it happens; this finds those a crash left out, in one process at a time.
      await underLock(signals, SWEEP_LOCK, () => work.recover());
      dispatcher = electDispatcher(signals, () => work.dispatcher(), log);
      claiming = await startClaiming({
        shared,
        runner,
        lanes: deps.lanes,
        deadlines: deps.deadlines,
        refreshPauses: deps.refreshPauses,
        laneOf,
        events: deps.events,
        config,
        log,
      });
      // The sweep (and the housekeeping after it) runs in one process at a time across the fleet.
      const sweep = async () => {
        const outcome = await underLock(signals, SWEEP_LOCK, sweepWith(deps.sweep, work));
        return outcome.ran ? outcome.value : [];
      };
      sweeper = startSweepTimer(sweep, config, log);
      // Deadlines of tasks whose process went away (or that no process has claimed) are kept by a poll, in one process
      // at a time.
      deadlinePoll = setInterval(() => {
        void underLock(signals, DEADLINE_LOCK, deps.expireDue).catch((err: Error) =>
          log(`deadlines not checked (${err.message})`),
        );
      }, DEADLINE_POLL_MS);
      deadlinePoll.unref();
    },
    async close(graceMs) {
      sweeper?.stop();
      clearInterval(deadlinePoll);
      if (claiming) await claiming.close(() => runner.close(graceMs));
      else await runner.close(graceMs);
      await dispatcher?.close(graceMs);
      unbridge?.();
    },
  };
}

/**
 * How many more tasks this process takes now, lane by lane: in each lane with pending tasks
 * (`known`) or work here, its slots (at least `work.defaultConcurrency`) and as many again queued behind them
 * (more where model affinity needs a choice: a lane of several providers), so a lane does not
 * idle while the next claim is on its way (as the webhook dispatcher reads ahead), less what it
 * holds there: the items queued or running in the lane, or the tasks it holds for it if more (a
 * task being prepared has no item in a lane yet). A paused lane takes none.
 */
function laneWants(
  lanes: Lanes,
  known: ReadonlySet<string>,
  urgent: ReadonlySet<string>,
  legacy: () => number,
  defaultConcurrency: () => number,
): (held: ReadonlyMap<string, number>) => ClaimWant[] {
  return (held) => {
    const load = lanes.load();
    const names = new Set([...known, ...load.keys(), ...held.keys()]);
    const wants: ClaimWant[] = [];
    for (const lane of names) {
      if (lane === '' || lanes.isPaused(lane)) continue;
      const here = load.get(lane) ?? lanes.loadOf(lane);
      const busy = here.running + here.queued;
      // At least work.defaultConcurrency slots' worth, as before lanes were claimed one by one.
      const room = 2 * Math.max(here.concurrency, defaultConcurrency()) + here.lookahead;
      const limit = Math.max(0, room - Math.max(busy, held.get(lane) ?? 0));
      // Full, but a raised priority waits: one of those is taken anyway, to start before what is queued here.
      if (limit === 0 && urgent.has(lane)) wants.push({ lane, limit: 1, minPriority: 1 });
      else wants.push({ lane, limit });
    }
    const old = legacy();
    if (old > 0) wants.push({ lane: null, limit: old });
    return wants;
  };
}

/** Claims tasks for this process's runner: on each created notification, after a reconnection, and every POLL_MS. */
async function startClaiming(options: {
  shared: SharedQueueStore;
  runner: Pick<TaskRunner, 'run' | 'leaseLost'>;
  lanes: Lanes;
  deadlines: IntakeDeps['deadlines'];
  refreshPauses: IntakeDeps['refreshPauses'];
  laneOf: (task: TaskRecord) => string;
  events: EventBus;
  config: ConfigSource;
  log: (message: string) => void;
}) {
  const { shared, config } = options;
  const workerId = newWorkerId();
  const leaseMs = () => config.current().work.leaseMs;
  // Tasks held here that this process settled: a settled task is never claimed again, so its
  // lease needs no write (and its release no round trip). Bounded by the tasks held.
  const settledHere = new Set<string>();
  const offSettled = options.events.on('task:settled', ({ task }) => {
    if (claimer.holds(task.id)) settledHere.add(task.id);
  });
  // The lanes with pending tasks: from created notifications as they come, and read again on every poll.
  const known = new Set<string>();
  /**
   * Lanes where a task of a raised priority was announced: a full process still takes one of those (it starts before
   * its queued work).
   */
  const urgent = new Set<string>();
  let legacy = false;
  const refreshLanes = async () => {
    try {
      const found = await shared.leases.pendingLanes();
      for (const lane of known) if (!found.lanes.includes(lane)) known.delete(lane);
      for (const lane of found.lanes) known.add(lane);
      legacy = found.legacy;
    } catch (err) {
      options.log(`pending lanes not read (${(err as Error).message})`);
    }
  };
  await refreshLanes();
  const claimer = createClaimer({
    leases: {
      claim: (wants) => {
        urgent.clear();
        return shared.leases.claim(workerId, wants, leaseMs());
      },
      renew: (ids) => shared.leases.renew(workerId, ids, leaseMs()),
      release: async (id) => {
        if (!settledHere.delete(id)) await shared.leases.release(workerId, id);
      },
    },
    run: (task) => {
      // A claimed task's deadline is kept here too, to the millisecond (the fleet's poll is the fallback).
      if (task.deadlineAt !== undefined) options.deadlines.add(task.id, task.deadlineAt);
      return options.runner.run(task);
    },
    laneOf: options.laneOf,
    lost: (id) => options.runner.leaseLost(id),
    wants: laneWants(
      options.lanes,
      known,
      urgent,
      () => (legacy ? config.current().work.defaultConcurrency : 0),
      () => config.current().work.defaultConcurrency,
    ),
    leaseMs,
    pollMs: POLL_MS,
    log: options.log,
  });
  let open = true;
  await shared.signals.listen(CHANNELS.created, (payload) => {
    if (!open) return;
    for (const part of payload.split('\n')) {
      const [lane, mark] = part.split('\t');
      if (!lane) continue;
      known.add(lane);
      claimer.backlog(lane);
      if (mark === URGENT) urgent.add(lane);
    }
    claimer.wake();
  });
  shared.signals.onReconnect(() => open && claimer.wake());
  // What this process runs, for the fleet's figures (imgtask queues, metrics): reported with each poll.
  const report = () =>
    shared.lanes
      .report(
        workerId,
        Object.entries(options.lanes.stats()).map(([lane, stats]) => ({
          lane,
          running: stats.running,
          capacity: stats.concurrency,
          accounts: stats.topAccounts,
        })),
      )
      .catch((err: Error) => options.log(`lanes not reported (${err.message})`));
  const poll = setInterval(() => {
    void refreshLanes();
    void report();
    // A pause made by `imgtask queues pause` where the CLI opens the database itself sends no notification.
    void options.refreshPauses().catch((err: Error) => options.log(`lane pauses not read (${err.message})`));
  }, POLL_MS);
  poll.unref();
  claimer.start();
  return {
    workerId,
    offer: (lane: string) => open && claimer.offer(lane),
    adopt: (task: TaskRecord, lane: string) => claimer.adopt(task, lane),
    unused: (lane: string) => claimer.unused(lane),
    async close(stopRunner: () => Promise<void>) {
      open = false;
      clearInterval(poll);
      offSettled();
      await claimer.close(stopRunner);
      await shared.lanes.forget(workerId).catch(() => undefined);
    },
  };
}
