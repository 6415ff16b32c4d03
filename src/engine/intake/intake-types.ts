import type { ConfigSource } from '../../config/source.js';
import type { QueueView } from '../../domain/dashboard.js';
import type { EventBus } from '../../services/event-bus.js';
import type { LanePauseRecord, TaskRecord } from '../../store/records.js';
import type { Deadlines } from '../deadlines.js';
import type { LaneBacklog } from '../load-limits.js';
import type { Lanes } from '../runner/lanes.js';
import type { TaskRunner } from '../runner/task-runner.js';
import type { TaskSettler } from '../task-settler.js';
import type { TaskStreams } from '../task-stream.js';

/** The webhook dispatcher as the intake places it: the install runs one, in one working process at a time. */
export interface Dispatcher {
  start(): void;
  /** Stops it; what it has in flight gets up to `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** What a working process runs besides tasks, handed in by the composition root; the intake decides where each runs. */
export interface SingletonDuties {
  /**
   * Catches up on what a crash left undone (the webhook events of settlements), once at start, in one process at a
   * time.
   */
  recover(): Promise<void>;
  /** Makes the webhook dispatcher (started by the intake where it is to run). */
  dispatcher(): Dispatcher;
  /**
   * What the sweep runs after expiring tasks, on the same timer and in the same one process of
   * a fleet: erasures a crash left unfinished, then retention (docs/data-lifecycle.md).
   */
  housekeeping?(): Promise<void>;
}

/**
 * How created tasks reach a runner, and how this process takes part in the work. One per
 * process, picked by `openIntake` from what the store offers:
 *
 * - local (intake/local.ts): a store one process owns. A create queues into this process's
 *   runner; pending tasks are resumed at start; the sweep runs on a timer; this process dispatches.
 * - shared (intake/shared.ts): a store several processes share. A create notifies every
 *   working process, which claim tasks with leases up to their free capacity and renew them
 *   while they run; the sweep and the dispatcher run in one process at a time under advisory
 *   locks; settlements and items recorded are relayed between processes as events.
 */
export interface TaskIntake extends LaneBacklog {
  /**
   * Hands a task whose create is durable to the work. The task's lane is resolved now, so an
   * unknown type or lane throws here and the create fails with ENQUEUE_FAILED.
   */
  enqueue(task: TaskRecord, lease?: CreateLease): void;
  /**
   * A lease for a task about to be created, when this process is to run it itself (a shared
   * store, this process working, with room in its lanes): the create writes the task leased to
   * it, so it runs here at once, with no claim and no notification. The lease goes to
   * `enqueue` with the task once created, or `unused()` is called if the create fails.
   */
  leaseForCreate(lane: string): CreateLease | undefined;
  /**
   * Starts this process's part: with `work`, it works (takes tasks, sweeps, dispatches where
   * this process is the one to); without, it only serves (`serve --no-work`).
   */
  start(work: SingletonDuties | null): Promise<void>;
  /** This process's name in task leases, once working on a shared store. */
  workerId(): string | undefined;
  /**
   * The lanes as operators see them: this process's (a store it owns), or the fleet's (a shared store), with the pauses
   * given.
   */
  queues(pauses: readonly LanePauseRecord[]): Promise<QueueView[]>;
  /** Stops taking work; running items get `graceMs` to finish (and the dispatcher as long), then are left pending. */
  close(graceMs: number): Promise<void>;
}

/** A lease a task is created with (see TaskIntake.leaseForCreate). */
export interface CreateLease {
  owner: string;
  ms: number;
  /** The create failed: the room it held is free again. */
  unused(): void;
}

/** What either intake drives: the engine's own parts. */
export interface IntakeDeps {
  runner: TaskRunner;
  lanes: Lanes;
  settlement: Pick<TaskSettler, 'definition'>;
  /** The expiry sweep (the task service's), answering the ids it expired. */
  sweep(): Promise<string[]>;
  /**
   * Reads the operators' lane pauses again (a shared store's poll: a pause made where no notification was sent, or one
   * missed).
   */
  refreshPauses(): Promise<void>;
  /** Ends the pending tasks whose deadline passed (the task service's); a shared store's poll runs it for the fleet. */
  expireDue(): Promise<string[]>;
  /** Task deadlines of this process: pending tasks found at start, and those a fleet poll finds, are added. */
  deadlines: Pick<Deadlines, 'add'>;
  /** Live status streams: read again after notifications from other processes may have been missed. */
  streams: Pick<TaskStreams, 'refresh'>;
  events: EventBus;
  config: ConfigSource;
  log: (message: string) => void;
}
