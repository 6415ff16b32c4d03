import type { EventBus, ItemFractions } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { RunnerProgress } from './runner/live-tasks.js';

/**
 * Where a pending task stands beyond its items recorded: in memory only, never journaled (lost with the process, as it
 * should be).
 */
export interface LiveProgress {
  /** Each running item's fraction 0..1, by item index, for the items whose provider reports one. */
  fractions: ItemFractions;
  /**
   * Tasks ahead of it in its lane while none of its items has started (known only in the process whose lanes hold it).
   */
  queuePosition?: number;
  /** ISO 8601 estimates from the lane's measured item times (known only in the process whose lanes hold it). */
  estimatedStartAt?: string;
  estimatedFinishAt?: string;
}

/**
 * What of live progress is worth an event on a stream: the fractions and the queue position.
 * The estimates move with the clock and ride along with whatever is sent.
 */
export const progressKey = (live: LiveProgress | undefined): string =>
  live ? JSON.stringify([live.fractions, live.queuePosition ?? null]) : '';

/** The tasks running in other processes whose progress is kept here: the oldest reported goes first past it. */
const MAX_ELSEWHERE = 10_000;

/** An estimate, to the second: a finer one would promise more than an estimate knows. */
const isoIn = (now: number, ms: number): string => new Date(Math.round((now + ms) / 1000) * 1000).toISOString();

/**
 * Where each pending task stands, as GET /tasks/{id} and the live status stream show it: from
 * this process's runner when it holds the task (fractions, queue position, estimates), else,
 * on a shared database, the fractions the process running it last announced (`task:progress-elsewhere`),
 * kept per task until it settles, in a bounded map.
 */
/** Where each pending task stands, from this runner or relayed from the process running it. */
export interface LiveProgressSource {
  of(taskId: string): LiveProgress | undefined;
  /** How many tasks' relayed fractions are held (bounded). */
  elsewhereSize(): number;
  close(): void;
}

export function createLiveProgress(deps: {
  events: EventBus;
  clock: Clock;
  local: (taskId: string) => RunnerProgress | undefined;
}): LiveProgressSource {
  const elsewhere = new Map<string, ItemFractions>();
  const off = [
    deps.events.on('task:progress-elsewhere', ({ taskId, fractions }) => {
      // Deleted first, so the map's order is the order of the last reports and the oldest goes first.
      elsewhere.delete(taskId);
      if (Object.keys(fractions).length === 0) return;
      elsewhere.set(taskId, fractions);
      if (elsewhere.size > MAX_ELSEWHERE) elsewhere.delete(elsewhere.keys().next().value!);
    }),
    deps.events.on('task:settled', ({ task }) => elsewhere.delete(task.id)),
    deps.events.on('task:settled-elsewhere', ({ taskId }) => elsewhere.delete(taskId)),
  ];
  return {
    of(taskId: string): LiveProgress | undefined {
      const local = deps.local(taskId);
      if (!local) {
        const fractions = elsewhere.get(taskId);
        return fractions && { fractions };
      }
      const live: LiveProgress = { fractions: local.fractions };
      if (local.queuePosition !== undefined) live.queuePosition = local.queuePosition;
      const now = deps.clock.now();
      if (local.startInMs !== undefined) live.estimatedStartAt = isoIn(now, local.startInMs);
      if (local.finishInMs !== undefined) live.estimatedFinishAt = isoIn(now, local.finishInMs);
      return live;
    },
    /** Tasks of other processes whose progress is kept (for tests). */
    elsewhereSize: () => elsewhere.size,
    close(): void {
      for (const unsubscribe of off) unsubscribe();
      elsewhere.clear();
    },
  };
}
