import type { ClaimWant } from '../../store/store-contract.js';
import type { TaskRecord } from '../task-registry.js';

/** The store's leases, bound to this worker's id and lease length. */
export interface LeaseSource {
  /**
   * Leases pending tasks not leased by anyone else (or whose lease expired), up to each lane's limit, in each lane's
   * fair order.
   */
  claim(wants: readonly ClaimWant[]): Promise<TaskRecord[]>;
  /** Renews the leases still held among `ids`; answers those. */
  renew(ids: readonly string[]): Promise<string[]>;
  release(id: string): Promise<void>;
}

export interface ClaimerOptions {
  leases: LeaseSource;
  /** Runs a claimed task's pending items; resolves when they have all run (or the runner stops). */
  run(task: TaskRecord): Promise<void>;
  /** The lane a task runs in. */
  laneOf(task: TaskRecord): string;
  /**
   * How many more tasks this process can take now, lane by lane (its free lane capacity), holding `held` tasks per lane
   * (`total` in all).
   */
  wants(held: ReadonlyMap<string, number>, total: number): ClaimWant[];
  /** The lease length: leases are renewed every third of it. */
  leaseMs(): number;
  /** A task held here whose lease was lost (settled elsewhere, or expired). */
  lost?(id: string): void;
  /** Claims at least this often, whether woken or not (a notification can be missed). */
  pollMs: number;
  log: (message: string) => void;
}

/**
 * Takes work from a store several processes share: claims pending tasks up to its free
 * capacity, in one statement, when woken (a task was created) and every `pollMs`, and when a
 * task of its own finishes unless its last claim found fewer tasks than it asked for (then none
 * is left until a notification says so: a process with nothing to do does not ask again);
 * renews its leases every third of their length while their items run, and gives each lease
 * back when its task has run, or all of them when it stops. A process that dies keeps its
 * leases only until they expire; then another claims the tasks and runs their pending items
 * (finished items are journaled, so none runs twice to completion).
 */
export function createClaimer(options: ClaimerOptions) {
  const { leases, log } = options;
  /** The tasks leased here, with their lane. */
  const held = new Map<string, string>();
  /** Tasks held (or promised: being created leased to this process) per lane. */
  const perLane = new Map<string, number>();
  const count = (lane: string, by: number) => {
    const next = (perLane.get(lane) ?? 0) + by;
    if (next > 0) perLane.set(lane, next);
    else perLane.delete(lane);
  };
  /**
   * Tasks run here whose lease could not be given back (the store was out of reach): given back
   * before the next claim, so they are claimed again at once, not only when the lease expires.
   */
  const unreleased = new Set<string>();
  const running = new Set<Promise<void>>();
  let closing = false;
  /** Set once the runner has stopped: leases are no longer renewed. */
  let stopped = false;
  let claiming = false;
  /** Woken while a claim was in flight: claim again once it ends. */
  let again = false;
  /** A task of its own finished while a claim was in flight. */
  let againFreed = false;
  /**
   * The last claim found fewer tasks than it could take in every lane: only a notification or the poll claims again.
   */
  let drained = false;
  /**
   * Lanes whose last claim found fewer tasks than it asked for, and of which no create was
   * announced since: nothing of them waits in the store, so a task created here may be leased to
   * this process at once (offer) without passing older ones.
   */
  const drainedLanes = new Set<string>();
  /**
   * Tasks being created here already leased to this process (offer): counted against its room until they are adopted or
   * not created.
   */
  let promised = 0;

  /** Runs a task leased to this process, and gives its lease back once it has run. */
  function hold(task: TaskRecord): void {
    let lane = '';
    try {
      lane = options.laneOf(task);
    } catch {
      // A task whose lane cannot be named fails when it runs; it holds no lane's room meanwhile.
    }
    held.set(task.id, lane);
    count(lane, 1);
    const done = options
      .run(task)
      .catch((err: Error) => log(`task ${task.id}: ${err.message}`))
      .then(async () => {
        // Closing: close() gives back every lease still held, this one included (its queued items were dropped, not
        // run).
        if (closing) return;
        held.delete(task.id);
        count(lane, -1);
        await leases.release(task.id).catch((err: Error) => {
          unreleased.add(task.id);
          log(`task ${task.id}: lease not released (${err.message}); given back with the next claim`);
        });
      })
      .finally(() => {
        running.delete(done);
        freed();
      });
    running.add(done);
  }

  async function claim(woken: boolean): Promise<void> {
    if (closing) return;
    if (claiming) {
      if (woken) again = true;
      else againFreed = true;
      return;
    }
    claiming = true;
    try {
      for (const id of unreleased) {
        await leases.release(id);
        unreleased.delete(id);
      }
      const wants = options.wants(perLane, held.size + promised).filter((want) => want.limit > 0);
      const limit = wants.reduce((sum, want) => sum + want.limit, 0);
      if (limit === 0) return;
      const tasks = await leases.claim(wants);
      const got = new Map<string | null, number>();
      for (const task of tasks) {
        let lane: string | null = null;
        try {
          lane = options.laneOf(task);
        } catch {}
        got.set(lane, (got.get(lane) ?? 0) + 1);
      }
      // Per lane: an empty lane asked for does not make a busy one look drained.
      let full = false;
      for (const want of wants) {
        const short = (got.get(want.lane) ?? 0) < want.limit;
        if (!short) full = true;
        if (want.lane === null) continue;
        if (short) drainedLanes.add(want.lane);
        else drainedLanes.delete(want.lane);
      }
      drained = !full;
      for (const task of tasks) {
        if (closing) {
          await leases.release(task.id).catch(() => undefined);
          continue;
        }
        hold(task);
      }
      if (full) again = true; // there may be more
    } catch (err) {
      log(`claim failed: ${(err as Error).message}`);
    } finally {
      claiming = false;
      const woken = again;
      const room = againFreed;
      again = false;
      againFreed = false;
      if (woken) wake();
      else if (room) freed();
    }
  }

  async function heartbeat(): Promise<void> {
    if (stopped || held.size === 0) return;
    const ids = [...held.keys()];
    try {
      const kept = new Set(await leases.renew(ids));
      for (const id of ids) {
        if (kept.has(id) || !held.has(id)) continue;
        log(`task ${id}: lease lost (settled elsewhere, or expired); its items are checked before each run`);
        options.lost?.(id);
      }
    } catch (err) {
      log(`lease renewal failed: ${(err as Error).message}`);
    }
  }

  /** A notification (a task was created), a reconnection, the poll: pending tasks may be there. */
  function wake(): void {
    drained = false;
    if (!closing) setImmediate(() => void claim(true));
  }

  /** A task of its own finished: room for another, claimed unless the last claim found none left. */
  function freed(): void {
    if (!drained && !closing) setImmediate(() => void claim(false));
  }

  let pollTimer: NodeJS.Timeout | undefined;
  let beatTimer: NodeJS.Timeout | undefined;
  const schedule = () => {
    pollTimer = setTimeout(() => {
      wake();
      schedule();
    }, options.pollMs);
    pollTimer.unref();
  };
  const scheduleBeat = () => {
    beatTimer = setTimeout(
      () =>
        void heartbeat().finally(() => {
          if (!stopped) scheduleBeat();
        }),
      Math.max(50, Math.floor(options.leaseMs() / 3)),
    );
    beatTimer.unref();
  };

  return {
    start(): void {
      schedule();
      scheduleBeat();
      wake();
    },
    wake,
    /**
     * A create was announced in `lane`: it may wait in the store, so creates here are not leased to this process ahead
     * of it.
     */
    backlog(lane: string): void {
      drainedLanes.delete(lane);
    },
    /**
     * Whether a task about to be created here may be written leased to this process (so it runs
     * here with no claim): while it has room, counting the tasks already promised. A yes is
     * followed by `adopt` once the task is created, or `unused` if it is not.
     */
    offer(lane: string): boolean {
      if (closing || !drainedLanes.has(lane)) return false;
      const room = options.wants(perLane, held.size + promised).find((want) => want.lane === lane)?.limit ?? 0;
      if (room <= 0) return false;
      promised++;
      count(lane, 1);
      return true;
    },
    /** A task created leased to this process (after `offer(lane)`): run it as if claimed. */
    adopt(task: TaskRecord, lane: string): void {
      promised = Math.max(0, promised - 1);
      count(lane, -1);
      if (closing) {
        void leases.release(task.id).catch(() => undefined);
        return;
      }
      hold(task);
    },
    /** An offer (of `lane`) not taken up: the create failed, or its task was not handed over. */
    unused(lane: string): void {
      promised = Math.max(0, promised - 1);
      count(lane, -1);
    },
    /** Whether this process holds the lease of task `id`. */
    holds: (id: string): boolean => held.has(id),
    /** The tasks leased now. */
    held: (): number => held.size,
    /**
     * Stops claiming; `stopRunner` stops the runner (its items finish within the grace, or are
     * left pending), then every lease still held is given back, so another process takes those
     * tasks at once instead of after the lease.
     */
    async close(stopRunner: () => Promise<void>): Promise<void> {
      closing = true;
      clearTimeout(pollTimer);
      // Leases are still renewed while running items get their grace.
      await stopRunner();
      stopped = true;
      clearTimeout(beatTimer);
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      await Promise.all([...held.keys(), ...unreleased].map((id) => leases.release(id).catch(() => undefined)));
      held.clear();
      perLane.clear();
      unreleased.clear();
    },
  };
}
