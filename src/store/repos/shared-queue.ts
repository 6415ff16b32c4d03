import type { TaskRecord } from '../records/tasks.js';

/** The capability of a store several processes share: how they tell each other, and how they take tasks. */
export interface SharedQueueStore {
  readonly signals: StoreSignals;
  readonly leases: LeaseRepo;
  /** Fleet-wide slots of keys with a maxConcurrent. */
  readonly keySlots: KeySlotRepo;
  /** The lanes as the fleet sees them (imgtask queues, metrics). */
  readonly lanes: FleetLaneRepo;
}

/** One lane across the fleet: what waits in the store, and what the working processes report. */
export interface FleetLaneFigures {
  lane: string;
  /** Pending items of the lane's pending tasks (waiting, queued in a process, or running). */
  unfinishedItems: number;
  /** Items running in the processes that reported in the last few seconds, and their slots. */
  running: number;
  capacity: number;
  /** Creation time of the oldest pending task no process has claimed; null when none waits unclaimed. */
  waitingSince: string | null;
  /**
   * Items waiting per account: of its tasks no process has claimed yet, and queued in the processes (as they last
   * reported); accounts with none left out.
   */
  accounts: { account: string; items: number }[];
}

/** What every working process of a fleet reports of its lanes, and the fleet's figures per lane. */
export interface FleetLaneRepo {
  /** This process's lanes as they are now (replacing its last report). */
  report(
    worker: string,
    lanes: readonly {
      lane: string;
      running: number;
      capacity: number;
      accounts: readonly { account: string; queued: number }[];
    }[],
  ): Promise<void>;
  /** This process stopped: its report goes. */
  forget(worker: string): Promise<void>;
  /**
   * The fleet's figures, leaving out what `exceptWorker` reported (a working process adds its own lanes as they are
   * now).
   */
  figures(exceptWorker?: string): Promise<FleetLaneFigures[]>;
}

/**
 * Slots of an API key's maxConcurrent shared by every process (PostgreSQL: a session advisory
 * lock per slot, so a process that dies gives its slots back with its connection).
 */
export interface KeySlotRepo {
  /**
   * Takes one of `key`'s `cap` slots: answers how to give it back (resolved once given back), or null when all are
   * taken.
   */
  acquire(key: string, cap: number): Promise<(() => Promise<void>) | null>;
}

/** How many tasks a claim takes from one lane (null: the tasks created before lanes were kept). */
export interface ClaimWant {
  lane: string | null;
  limit: number;
  /** Only tasks of at least this priority (a full process taking a raised priority anyway). */
  minPriority?: number;
}

/** Task leases: how processes sharing a store take its pending tasks without two running the same one. */
export interface LeaseRepo {
  /**
   * Leases pending tasks to `workerId` for `leaseMs`, up to each want's `limit` in its lane, in
   * the lane's fair order (priority, the start tag given at create, age); a want of lane null
   * takes tasks created before lanes were kept, oldest first. Only tasks with no lease or whose
   * lease expired are taken; two callers at once never get the same task. Tasks of a key whose
   * maxConcurrent is already taken by leased tasks are passed over.
   */
  claim(workerId: string, wants: readonly ClaimWant[], leaseMs: number): Promise<TaskRecord[]>;
  /** The lanes with pending tasks, and whether tasks created before lanes were kept are pending (`legacy`). */
  pendingLanes(): Promise<{ lanes: string[]; legacy: boolean }>;
  /**
   * Extends the leases `workerId` still holds among `ids` by `leaseMs` from now; answers those ids (a lease lost or a
   * task settled is left out).
   */
  renew(workerId: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Gives a task's lease back (when `workerId` holds it), so another worker may claim it at once. */
  release(workerId: string, id: string): Promise<void>;
}

/**
 * What processes sharing one database tell each other (PostgreSQL: NOTIFY/LISTEN and session
 * advisory locks on one dedicated connection). The file store has none: one process owns it.
 */
export interface StoreSignals {
  /** Sends `payload` on `channel` to every listening process (this one included). */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `fn` with each payload sent on `channel` (from now on, and again after a reconnection). */
  listen(channel: string, fn: (payload: string) => void): Promise<void>;
  /**
   * Called after the dedicated connection was lost and opened again: held locks are gone, notifications may have been
   * missed.
   */
  onReconnect(fn: () => void): void;
  /**
   * Takes the advisory lock `key` for this process if free (true), or says it already holds it; held until `unlock` or
   * the connection ends.
   */
  tryLock(key: number): Promise<boolean>;
  /** Takes the first free one of `keys` in one round trip; answers it, or null when all are held (by anyone). */
  tryLockAny(keys: readonly number[]): Promise<number | null>;
  unlock(key: number): Promise<void>;
  close(): Promise<void>;
}
