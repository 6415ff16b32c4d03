import { randomBytes } from 'node:crypto';
import type { EventBus, ItemFractions } from '../../services/event-bus.js';
import type { StoreSignals } from '../../store/store-contract.js';
import type { Dispatcher } from './intake-types.js';
import { bridgePreviews } from './preview-signals.js';

/**
 * What the processes sharing one database tell each other, through the store's signals
 * (NOTIFY/LISTEN on a dedicated connection). Each kind is coalesced (see `announcer`): what
 * happens in one turn of the event loop, or while the notification before is on its way, goes
 * out as one notification, so a batch of creates or settlements costs one, not one per task.
 *
 * - creates commit, then notify `imgtask_task_created` (the newest task id); working processes
 *   wake and claim;
 * - settlements notify `imgtask_task_settled` (the task ids, separated by spaces); every process
 *   relays each to its sync answers waiting on that task (`task:settled-elsewhere`) and to its
 *   runner, which aborts the items it still runs for that task (a cancel);
 * - items recorded while others run notify `imgtask_task_item` (`<task id> <items finished>`
 *   pairs, separated by commas); every process relays each to its live status streams of that
 *   task (`task:item-elsewhere`);
 * - a running task's progress (`task:progress`, already at most a few a second per task) notifies
 *   `imgtask_task_progress` (`<process> <task id> <index>:<fraction>,…` parts, separated by
 *   semicolons: every fraction the running process holds for the task, replacing the last);
 *   every other process keeps the latest per task (`task:progress-elsewhere`) for GET /tasks/{id}
 *   and its live status streams. A process skips its own.
 * - deliveries falling due notify `imgtask_delivery_due`, which wakes the one dispatcher;
 * - an operator's pause or resume of a lane notifies `imgtask_lanes_changed`: every process reads the pauses again.
 * - a running item's live preview notifies `imgtask_task_preview` (preview-signals.ts), made small
 *   enough for one notification: every other process hands it to its live status streams.
 *
 * The expiry sweep and the webhook dispatcher run in one process at a time, each under an
 * advisory lock.
 */
export const CHANNELS = {
  created: 'imgtask_task_created',
  settled: 'imgtask_task_settled',
  item: 'imgtask_task_item',
  progress: 'imgtask_task_progress',
  deliveryDue: 'imgtask_delivery_due',
  lanes: 'imgtask_lanes_changed',
} as const;
export const SWEEP_LOCK = 0x1a6_7a5d;
export const DISPATCH_LOCK = 0x1a6_7a5e;
export const DEADLINE_LOCK = 0x1a6_7a5f;
/** How often a working process claims without being woken, and a standby dispatcher tries for the lock. */
export const POLL_MS = 2000;

/**
 * PostgreSQL refuses a payload of 8000 bytes or more: parts go in notifications under this many characters (task ids
 * are ASCII).
 */
const MAX_PAYLOAD = 7000;

/**
 * Announces on `channel` the parts it is given, coalesced: the parts added in one turn of the
 * event loop, or while the notification before is on its way, go out together, joined by
 * `separator` (in as few notifications as the payload limit allows), or, with `latest`, only
 * the newest of them; with `distinct`, each part once. A notification that cannot be sent is logged with `failed`.
 */
export function announcer(
  signals: Pick<StoreSignals, 'notify'>,
  channel: string,
  options: { separator?: string; latest?: boolean; distinct?: boolean; failed: (err: Error) => void },
) {
  let parts: string[] = [];
  let sending = false;
  let scheduled = false;
  const payloads = (batch: string[]): string[] => {
    if (options.latest) return [batch[batch.length - 1]];
    const out: string[] = [];
    let current = '';
    for (const part of batch) {
      if (current !== '' && current.length + part.length + 1 > MAX_PAYLOAD) {
        out.push(current);
        current = '';
      }
      current = current === '' ? part : `${current}${options.separator ?? ' '}${part}`;
    }
    out.push(current);
    return out;
  };
  async function send(): Promise<void> {
    scheduled = false;
    if (sending || parts.length === 0) return;
    sending = true;
    const batch = parts;
    parts = [];
    try {
      for (const payload of payloads(batch)) await signals.notify(channel, payload);
    } catch (err) {
      options.failed(err as Error);
    } finally {
      sending = false;
      if (parts.length > 0) schedule();
    }
  }
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void send());
  }
  return {
    add(part: string): void {
      // `distinct`: a part already waiting to go out is not added again (the lanes of a batch of creates).
      if (options.distinct && parts.includes(part)) return;
      parts.push(part);
      if (!sending) schedule();
    },
  };
}

/** A fraction in a notification: to a thousandth, as much as a progress bar shows. */
const fractionPart = (index: string, fraction: number) => `${index}:${Math.round(fraction * 1000) / 1000}`;

/** `<index>:<fraction>,…` back into fractions; what does not read as one is left out. */
function parseFractions(list: string | undefined): ItemFractions {
  const fractions: ItemFractions = {};
  for (const pair of (list ?? '').split(',')) {
    const [index, fraction] = pair.split(':').map(Number);
    if (Number.isInteger(index) && index >= 0 && fraction >= 0 && fraction <= 1) fractions[index] = fraction;
  }
  return fractions;
}

/**
 * Relays events between processes: settlements and items recorded here are announced, those
 * made anywhere wake the sync answers and live status streams here; deliveries due here or
 * anywhere wake the dispatcher. Answers the function that stops relaying.
 */
export async function bridgeEvents(
  signals: StoreSignals,
  events: EventBus,
  log: (message: string) => void,
): Promise<() => void> {
  let relaying = false;
  const failed = (channel: string) => (err: Error) => log(`postgres: ${channel} not sent (${err.message})`);
  const settled = announcer(signals, CHANNELS.settled, { separator: ' ', failed: failed(CHANNELS.settled) });
  const items = announcer(signals, CHANNELS.item, { separator: ',', failed: failed(CHANNELS.item) });
  const due = announcer(signals, CHANNELS.deliveryDue, { latest: true, failed: failed(CHANNELS.deliveryDue) });
  const progress = announcer(signals, CHANNELS.progress, { separator: ';', failed: failed(CHANNELS.progress) });
  const lanes = announcer(signals, CHANNELS.lanes, { latest: true, failed: failed(CHANNELS.lanes) });
  // This process's name on its progress notifications: its own, coming back, are not news here.
  const origin = randomBytes(4).toString('hex');
  const off = [
    events.on('task:settled', ({ task }) => settled.add(task.id)),
    events.on('task:item', ({ task }) =>
      items.add(`${task.id} ${task.items.filter((item) => item.status !== 'pending').length}`),
    ),
    events.on('task:progress', ({ taskId, fractions }) =>
      progress.add(
        `${origin} ${taskId} ${Object.entries(fractions)
          .map(([index, fraction]) => fractionPart(index, fraction))
          .join(',')}`,
      ),
    ),
    events.on('delivery:due', () => {
      if (!relaying) due.add('');
    }),
    events.on('lanes:changed', () => lanes.add('')),
  ];
  let open = true;
  await signals.listen(CHANNELS.settled, (payload) => {
    for (const taskId of payload.split(' ')) if (open && taskId) events.emit('task:settled-elsewhere', { taskId });
  });
  await signals.listen(CHANNELS.item, (payload) => {
    for (const pair of payload.split(',')) {
      const [taskId, finished] = pair.split(' ');
      if (open && taskId) events.emit('task:item-elsewhere', { taskId, finished: Number(finished) || 0 });
    }
  });
  await signals.listen(CHANNELS.progress, (payload) => {
    for (const part of payload.split(';')) {
      const [from, taskId, list] = part.split(' ');
      if (open && taskId && from !== origin)
        events.emit('task:progress-elsewhere', { taskId, fractions: parseFractions(list) });
    }
  });
  // A pause or resume anywhere (this process's own included, harmlessly): the lanes read the pauses again.
  await signals.listen(CHANNELS.lanes, () => open && events.emit('lanes:changed-elsewhere', {}));
  const stopPreviews = await bridgePreviews(signals, events, log);
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
    stopPreviews();
  };
}

/** Runs `fn` only while this process holds the advisory lock `key`; false (not run) when another holds it. */
export async function underLock<T>(
  signals: StoreSignals,
  key: number,
  fn: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
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
