/** How long a deadline whose expiry could not be written (the store refused it) waits before it is tried again. */
const RETRY_MS = 1000;

/** The longest a timer is set for at once (Node's limit is about 24.8 days; a deadline is at most 24 h). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Due {
  at: number;
  taskId: string;
}

/** Task deadlines (Cancel-After) of this process, each ending its task when it passes. */
export interface Deadlines {
  /** Ends task `taskId` at `deadlineAt` (an ISO time) unless it settles first. */
  add(taskId: string, deadlineAt: string): void;
  /** Deadlines waiting (tests). */
  size(): number;
  /** Stops the timer; the deadlines stay with their tasks. */
  close(): void;
}

/**
 * Task deadlines (Cancel-After) of this process: a min-heap by time and one timer for the
 * earliest, so a deadline costs O(log n) to add and nothing per queued task on a timer list.
 * When one passes, `expire` ends its task (TASK_EXPIRED); a task settled by then is a no-op
 * there. Deadlines are kept with their tasks, so a restart adds those still pending again
 * (intake/local.ts), and on a shared store a poll finds those of other processes (intake/shared.ts).
 */
export function createDeadlines(options: {
  expire(taskId: string): Promise<unknown>;
  now(): number;
  log(message: string): void;
}): Deadlines {
  const heap: Due[] = [];
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  let closed = false;

  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].at <= heap[i].at) return;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && heap[left].at < heap[least].at) least = left;
      if (right < heap.length && heap[right].at < heap[least].at) least = right;
      if (least === i) return;
      [heap[least], heap[i]] = [heap[i], heap[least]];
      i = least;
    }
  };
  const pop = (): Due => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      down(0);
    }
    return top;
  };

  function arm(): void {
    if (closed || heap.length === 0) return;
    const at = heap[0].at;
    if (timer && at >= armedFor) return;
    clearTimeout(timer);
    armedFor = at;
    timer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, at - options.now())));
    timer.unref();
  }

  function fire(): void {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = options.now();
    while (heap.length > 0 && heap[0].at <= now) {
      const { taskId } = pop();
      options.expire(taskId).catch((err: Error) => {
        options.log(
          `task ${taskId}: its deadline passed but the expiry was not written (${err.message}); tried again shortly`,
        );
        add(taskId, options.now() + RETRY_MS);
      });
    }
    arm();
  }

  function add(taskId: string, at: number): void {
    if (closed || !Number.isFinite(at)) return;
    heap.push({ at, taskId });
    up(heap.length - 1);
    arm();
  }

  return {
    /** Ends task `taskId` at `deadlineAt` (an ISO time) unless it settles first. */
    add: (taskId: string, deadlineAt: string) => add(taskId, Date.parse(deadlineAt)),
    /** Deadlines waiting (tests). */
    size: () => heap.length,
    close(): void {
      closed = true;
      clearTimeout(timer);
      heap.length = 0;
    },
  };
}
