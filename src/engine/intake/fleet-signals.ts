import type { EventBus } from '../../services/events.js';
import type { StoreSignals } from '../../store/types.js';
import type { Dispatcher } from './intake.js';

/**
 * What the processes sharing one database tell each other, through the store's signals
 * (NOTIFY/LISTEN on a dedicated connection):
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

/**
 * Relays events between processes: settlements and items recorded here are announced, those
 * made anywhere wake the sync answers and live status streams here; deliveries due here or
 * anywhere wake the dispatcher. Answers the function that stops relaying.
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
export function electDispatcher(signals: StoreSignals, make: () => Dispatcher, log: (message: string) => void) {
  let active: Dispatcher | undefined;
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
