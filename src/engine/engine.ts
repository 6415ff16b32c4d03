import type { ConfigSource } from '../config/source.js';
import type { QueueView } from '../domain/dashboard.js';
import { isoTime } from '../domain/time.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { SpaceGuard } from '../services/space-guard.js';
import type { TokenService } from '../services/tokens.js';
import type { WebhookUrlCheck } from '../services/webhooks/webhook-url.js';
import type { LanePauseRecord, StoredFile } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { type AccountEvents, createAccountEvents } from './account-events.js';
import { createDeadlines } from './deadlines.js';
import { fleetKeySlotsOf, openIntake } from './intake/intake.js';
import type { SingletonDuties } from './intake/intake-types.js';
import { createLiveProgress, type LiveProgressSource } from './live-progress.js';
import { createLoadLimits } from './load-limits.js';
import { createOwnerLookup } from './owners.js';
import { Lanes } from './runner/lanes.js';
import { createTaskRunner } from './runner/task-runner.js';
import type { TaskTypeRegistry } from './task-registry.js';
import { createTaskService, type TaskService } from './task-service.js';
import { createTaskSettler, type TaskSettler } from './task-settler.js';
import { createTaskStreams, type TaskStreams } from './task-stream.js';

export interface EngineDeps {
  store: Store;
  registry: TaskTypeRegistry;
  clock: Clock;
  events: EventBus;
  config: ConfigSource;
  tokens: TokenService;
  log: (message: string) => void;
  /** Refuses creates (507 STORAGE_FULL) while free space is below store.minFreeBytes; none: never refused. */
  space?: Pick<SpaceGuard, 'admit'>;
  /** Refuses a task's `webhook.custom` URL that deliveries could never reach; none: not checked. */
  checkWebhookUrl?: WebhookUrlCheck;
  /** Removes files an item stored that no record names (its task cancelled or deleted as it ran); none: they stay. */
  discardFiles?: (files: readonly StoredFile[]) => Promise<void>;
}

/** The task lifecycle of one process, as the composition root holds it. */
export interface Engine {
  /** Records items as they finish and settles tasks. */
  settlement: TaskSettler;
  lanes: Lanes;
  /** The request side: estimate, create, read, cancel, sweep, sync waits. */
  tasks: TaskService;
  /** Live status streams (GET /tasks/{id}/events). */
  streams: TaskStreams;
  /** An account's settled events, live (GET /webhook/events). */
  accountEvents: AccountEvents;
  /** Where pending tasks stand in memory (this runner's, or relayed from the process running them). */
  live: LiveProgressSource;
  /** Starts this process's part of the work (`work`), or only its serving part (null: `serve --no-work`). */
  start(work: SingletonDuties | null): Promise<void>;
  /** Every lane with work or a pause: this process's, or the fleet's on a shared store. */
  queues(): Promise<QueueView[]>;
  /** Pauses a lane, fleet-wide: its queued items wait, running ones finish, creates are still taken. */
  pauseLane(lane: string): Promise<LanePauseRecord>;
  /** Resumes a paused lane, fleet-wide; false when it was not paused. */
  resumeLane(lane: string): Promise<boolean>;
  /** This process's name in task leases (a working process on a shared store). */
  workerId(): string | undefined;
  /** Stops taking work; running items get `graceMs`, then stay pending for the next start. */
  close(graceMs: number): Promise<void>;
}

/**
 * The task lifecycle of one process, built in dependency order: settlement, the
 * lanes and the runner, the live status fan-out, the intake (picked from the store, once), and
 * the request side, which hands each created task to the intake. Nothing runs until `start`;
 * operator commands on a stopped data dir never start it.
 */
export function createEngine(deps: EngineDeps): Engine {
  const { store, registry, clock, events, config, log } = deps;
  const settlement = createTaskSettler({ store, registry, clock, events });
  const lanes = new Lanes(config, { log, fleetKeySlots: fleetKeySlotsOf(store) });
  /** Applies the pauses the store holds to this process's lanes. */
  const loadPauses = async () => lanes.setPaused((await store.lanePauses.list()).map((pause) => pause.id));
  const runner = createTaskRunner({
    settlement,
    lanes,
    config,
    log,
    events,
    owner: createOwnerLookup(store),
    discardFiles: deps.discardFiles,
  });
  // Cancel-After: a task whose deadline passes is ended as a cancel is, with TASK_EXPIRED.
  const deadlines = createDeadlines({ expire: (taskId) => settlement.expire(taskId), now: () => clock.now(), log });
  // Where pending tasks stand (running items' fractions, queue position, estimates): this runner's, or relayed from the
  // process running them.
  // Made before the streams: it hears a relayed report first, so a stream told of it reads it.
  const live = createLiveProgress({ events, clock, local: (taskId) => runner.progressOf(taskId) });
  // Live status streams (GET /tasks/{id}/events): one bus subscription fanning out to every stream.
  const streams = createTaskStreams({ store, events, log, live: (taskId) => live.of(taskId) });
  // Each account's settled-task events, live (GET /webhook/events, what `imgtask webhooks listen` forwards).
  const accountEvents = createAccountEvents({ store, events, clock, log });
  // The sweep is the task service's, made below; the intake only runs it where and when it is to run.
  const intake = openIntake(store, {
    runner,
    lanes,
    settlement,
    streams,
    events,
    config,
    log,
    deadlines,
    sweep: () => tasks.sweep(),
    expireDue: () => tasks.expireDue(),
    refreshPauses: loadPauses,
  });
  const tasks: TaskService = createTaskService({
    store,
    registry,
    settlement,
    intake,
    tokens: deps.tokens,
    clock,
    events,
    limits: createLoadLimits(config, clock),
    log,
    space: deps.space,
    live: (taskId) => live.of(taskId),
    deadlines,
    checkWebhookUrl: deps.checkWebhookUrl,
  });
  const offPauses = [
    events.on('lanes:changed-elsewhere', () =>
      loadPauses().catch((err: Error) => log(`lane pauses not read (${err.message})`)),
    ),
  ];
  return {
    settlement,
    lanes,
    tasks,
    streams,
    accountEvents,
    /** Where pending tasks stand in memory (this runner's, or relayed from the process running them). */
    live,
    /** Starts this process's part of the work (`work`), or only its serving part (null: `serve --no-work`). */
    start: async (work: SingletonDuties | null) => {
      await loadPauses();
      await intake.start(work);
    },
    /** Every lane with work or a pause: this process's, or the fleet's on a shared store. */
    queues: async (): Promise<QueueView[]> => intake.queues(await store.lanePauses.list()),
    /** Pauses a lane, fleet-wide: its queued items wait, running ones finish, creates are still taken. */
    async pauseLane(lane: string): Promise<LanePauseRecord> {
      const pause = await store.lanePauses.pause({ id: lane, pausedAt: isoTime(clock.now()) });
      await loadPauses();
      events.emit('lanes:changed', {});
      return pause;
    },
    /** Resumes a paused lane, fleet-wide; false when it was not paused. */
    async resumeLane(lane: string): Promise<boolean> {
      const resumed = await store.lanePauses.resume(lane);
      await loadPauses();
      if (resumed) events.emit('lanes:changed', {});
      return resumed;
    },
    /** This process's name in task leases (a working process on a shared store). */
    workerId: () => intake.workerId(),
    /** Stops taking work; running items get `graceMs`, then stay pending for the next start. */
    close: async (graceMs: number) => {
      for (const off of offPauses) off();
      // Open account streams end now (their clients connect again): each would hold its connection, and the server's
      // close, open.
      accountEvents.close();
      deadlines.close();
      await intake.close(graceMs);
      live.close();
    },
  };
}
