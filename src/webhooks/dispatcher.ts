import type { ConfigSource } from '../config/source.js';
import { isOutOfSpace } from '../domain/storage-full.js';
import type { EventBus } from '../services/event-bus.js';
import { DeliveryTurns, type SlotLimits } from './delivery-turns.js';
import { EndpointBackoff } from './endpoint-backoff.js';
import type { DeliveryRecord, DeliverySource } from './outbox.js';

type SendResult = { status: number | null; latencyMs: number; error?: string };
type WebhookSettings = ReturnType<ConfigSource['current']>['webhooks'];

/** One attempt, once journaled: the delivery as it now stands (status, attempts so far) and what the send came to. */
export interface AttemptOutcome {
  delivery: DeliveryRecord;
  /** The HTTP status answered; null when none came (refused, timed out) or no request was made. */
  httpStatus: number | null;
  latencyMs: number;
  error?: string;
}

/**
 * Due deliveries kept read ahead at most: enough to see past one account's blocked backlog to
 * the next account's deliveries, few enough that a read's list of ids to leave out stays small.
 */
const waitingAtMost = (settings: WebhookSettings) => Math.max(256, settings.concurrency * 32);

/**
 * Sends due deliveries: wakes on `delivery:due`, when a send finishes, when the earliest retry
 * falls due and when an endpoint's cool-down ends; at most `webhooks.concurrency` requests at
 * once (a reload resizes it), shared out by the fair queue (accounts take turns, per-account and
 * per-endpoint caps) and the endpoints' back-off; journals each attempt. After a restart it
 * simply finds the pending deliveries in the store. One runs per fleet (on PostgreSQL under an
 * advisory lock), so what it keeps in memory is all there is to know.
 */
export function createWebhookDispatcher(options: {
  outbox: DeliverySource;
  events: EventBus;
  config: ConfigSource;
  send: (delivery: DeliveryRecord, message: { id: string; body: string; secret?: string }) => Promise<SendResult>;
  log: (message: string) => void;
  /** Told of each journaled attempt (the outcome log line, the metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}) {
  const { outbox } = options;
  const subscriptions = [options.events.on('delivery:due', () => kick()), options.config.onChange(() => kick())];
  const queue = new DeliveryTurns();
  const backoff = new EndpointBackoff();
  /** Read and not yet journaled (waiting, sending, or its attempt being written): never read twice. */
  const taken = new Set<string>();
  const sending = new Set<Promise<void>>();
  const journaling = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  /** When the first delivery the last read left (not due yet, or no room) falls due. */
  let nextDue: number | null = null;
  let stopped = false;
  /** Set by close: nothing new is taken, what is in flight may still be journaled. */
  let closing = false;
  let ticking = false;
  let again = false;
  /**
   * Set while attempts cannot be recorded for lack of space: no delivery is taken until `until`
   * (1 s, doubling to 30 s), so a receiver is not sent an unrecorded delivery over and over.
   */
  let spacePause: { until: number; ms: number } | null = null;

  const settings = () => options.config.current().webhooks;
  // A config built without the sharing keys (by hand, in a test) gets their defaults.
  const limitsOf = (w: WebhookSettings): SlotLimits => ({
    slots: w.concurrency,
    perAccount: w.perAccountConcurrency ?? 4,
    endpointCap: (url) => backoff.cap(url, w.perEndpointConcurrency ?? 2),
  });

  function start(deliveries: DeliveryRecord[]): void {
    for (const delivery of deliveries) {
      const sent = attempt(delivery);
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    }
  }

  async function attempt(delivery: DeliveryRecord): Promise<void> {
    let result: SendResult | { skip: string };
    try {
      const message = await outbox.message(delivery);
      result = 'skip' in message ? message : await options.send(delivery, message);
    } catch (err) {
      options.log(`webhooks: delivery ${delivery.id} attempt not made: ${(err as Error).message}`);
      queue.finished(delivery);
      taken.delete(delivery.id);
      kick();
      return;
    }
    queue.finished(delivery);
    if (!('skip' in result)) {
      if (result.status === null) backoff.unanswered(delivery.url, settings().endpointCooldownMaxMs ?? 300_000);
      else backoff.answered(delivery.url);
    }
    // Journaled outside the send slot: the slot takes the next delivery while group commit
    // writes the attempts of many at once. The delivery stays taken until it is written.
    const written = journal(delivery, result);
    journaling.add(written);
    void written.finally(() => journaling.delete(written));
    kick();
  }

  async function journal(delivery: DeliveryRecord, result: SendResult | { skip: string }): Promise<void> {
    try {
      if (stopped) return;
      const saved = await outbox.recordAttempt(delivery, result);
      spacePause = null;
      const sent =
        'skip' in result
          ? { httpStatus: null, latencyMs: 0, error: result.skip }
          : { httpStatus: result.status, latencyMs: result.latencyMs, error: result.error };
      options.onAttempt?.({ delivery: saved, ...sent });
    } catch (err) {
      options.log(`webhooks: delivery ${delivery.id} attempt not recorded: ${(err as Error).message}`);
      if (isOutOfSpace(err)) {
        const ms = Math.min(30_000, (spacePause?.ms ?? 500) * 2);
        spacePause = { until: Date.now() + ms, ms };
      }
    } finally {
      taken.delete(delivery.id);
      kick();
    }
  }

  /**
   * Reads due deliveries into the queue while slots are free, then starts what the queue lets.
   * Each read takes a few (twice the slots), leaving out those already taken, so a backlog is
   * read a few at a time in due order, never scanned whole; a read comes before the take, so an
   * account whose delivery just fell due gets its turn with those already waiting.
   */
  async function fill(): Promise<void> {
    const w = settings();
    const limits = limitsOf(w);
    for (;;) {
      if (queue.sending >= limits.slots) return;
      const room = Math.min(w.concurrency * 2, waitingAtMost(w) - queue.size);
      if (room <= 0) {
        // Full of deliveries that must wait (their account's or endpoint's share taken, a
        // cool-down): start what may start; a finishing send or the timer wakes this again.
        start(queue.take(limits));
        return;
      }
      const { due, nextAt } = await outbox.due(Date.now(), room, taken);
      if (closing) return;
      nextDue = nextAt;
      for (const delivery of due) taken.add(delivery.id);
      queue.add(due);
      start(queue.take(limits));
      // Read on to the end of what is due, unless the slots are full.
      if (due.length < room) return;
    }
  }

  async function tick(): Promise<void> {
    if (closing) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      const paused = spacePause && spacePause.until - Date.now();
      if (paused && paused > 0) {
        wakeAt(Date.now() + paused);
        return;
      }
      await fill();
      if (closing) return;
      // The next moment something waiting may start: a retry falling due, or a cool-down ending.
      // A delivery already due but left for lack of room is taken when a send finishes.
      // A retry read as not yet due may be due by now (a timer fires a millisecond early by the
      // wall clock): it is kept, and wakeAt waits the shortest delay, never drops it.
      const cooled = backoff.nextEnd(queue.endpoints());
      const next = [nextDue, cooled].filter((at): at is number => at !== null);
      clearTimeout(timer);
      if (next.length > 0) wakeAt(Math.min(...next));
    } finally {
      ticking = false;
      if (again) {
        again = false;
        void tick();
      }
    }
  }

  /** Wakes at `at`, capped, so a clock jump or a missed wake-up costs at most a minute. */
  function wakeAt(at: number): void {
    clearTimeout(timer);
    if (closing) return;
    timer = setTimeout(() => void tick(), Math.min(60_000, Math.max(10, at - Date.now())));
    timer.unref();
  }

  function kick(): void {
    if (!closing) setImmediate(() => void tick());
  }

  return {
    start: kick,
    /** Stops sending; attempts in flight get `graceMs` to finish and be journaled. */
    async close(graceMs: number): Promise<void> {
      closing = true;
      for (const unsubscribe of subscriptions) unsubscribe();
      clearTimeout(timer);
      // Those waiting stay pending in the store: the next dispatcher reads them again.
      for (const id of queue.clear()) taken.delete(id);
      const settled = Promise.all(sending).then(() => Promise.all(journaling));
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      stopped = true;
    },
  };
}
