import PQueue from 'p-queue';
import type { ConfigSource } from '../config/source.js';
import { isOutOfSpace } from '../domain/storage-full.js';
import type { EventBus } from '../services/events.js';
import type { DeliveryRecord, Outbox } from './outbox.js';

type SendResult = { status: number | null; latencyMs: number; error?: string };

/** One attempt, once journaled: the delivery as it now stands (status, attempts so far) and what the send came to. */
export interface AttemptOutcome {
  delivery: DeliveryRecord;
  /** The HTTP status answered; null when none came (refused, timed out) or no request was made. */
  httpStatus: number | null;
  latencyMs: number;
  error?: string;
}

/**
 * Sends due deliveries: wakes on `delivery:due`, when a send finishes and when the earliest
 * retry falls due; at most `webhooks.concurrency` requests at once (a reload resizes it);
 * journals each attempt. After a restart it simply finds the pending deliveries in the store.
 */
export function createWebhookDispatcher(options: {
  outbox: Outbox;
  events: EventBus;
  config: ConfigSource;
  send: (delivery: DeliveryRecord, message: { id: string; body: string; secret?: string }) => Promise<SendResult>;
  log: (message: string) => void;
  /** Told of each journaled attempt (the outcome log line, the metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}) {
  const { outbox } = options;
  const queue = new PQueue({ concurrency: options.config.current().webhooks.concurrency });
  const subscriptions = [
    options.events.on('delivery:due', () => kick()),
    options.config.onChange((next) => {
      queue.concurrency = next.webhooks.concurrency;
      kick();
    }),
  ];
  /** Taken and not yet journaled (sending, or its attempt being written): never taken twice. */
  const inFlight = new Set<string>();
  const journaling = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
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

  async function attempt(delivery: DeliveryRecord): Promise<void> {
    let result: SendResult | { skip: string };
    try {
      const message = await outbox.message(delivery);
      result = 'skip' in message ? message : await options.send(delivery, message);
    } catch (err) {
      options.log(`webhooks: delivery ${delivery.id} attempt not made: ${(err as Error).message}`);
      inFlight.delete(delivery.id);
      return;
    }
    // Journaled outside the send slot: the slot takes the next delivery while group commit
    // writes the attempts of many at once. The delivery stays in flight until it is written.
    const written = journal(delivery, result);
    journaling.add(written);
    void written.finally(() => journaling.delete(written));
  }

  async function journal(delivery: DeliveryRecord, result: SendResult | { skip: string }): Promise<void> {
    try {
      if (stopped) return;
      const saved = await outbox.recordAttempt(delivery, result);
      spacePause = null;
      const sent = 'skip' in result ? { httpStatus: null, latencyMs: 0, error: result.skip } : { httpStatus: result.status, latencyMs: result.latencyMs, error: result.error };
      options.onAttempt?.({ delivery: saved, ...sent });
    } catch (err) {
      options.log(`webhooks: delivery ${delivery.id} attempt not recorded: ${(err as Error).message}`);
      if (isOutOfSpace(err)) {
        const ms = Math.min(30_000, (spacePause?.ms ?? 500) * 2);
        spacePause = { until: Date.now() + ms, ms };
      }
    } finally {
      inFlight.delete(delivery.id);
      kick();
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
        clearTimeout(timer);
        timer = setTimeout(() => void tick(), paused);
        timer.unref();
        return;
      }
      // Enough queued behind the slots: a finishing send will wake this again. Refilling only
      // once half of it is gone makes a read take many at a time (each read steps over those in flight).
      if (queue.size > queue.concurrency / 2) return;
      // Take only what the free slots can start (and as many again queued behind them), so a
      // backlog is read a few deliveries at a time in due order, never scanned whole.
      const room = queue.concurrency * 2 - queue.size - queue.pending;
      const now = Date.now();
      const { due, nextAt } = await outbox.due(now, room, inFlight);
      for (const delivery of due) {
        inFlight.add(delivery.id);
        void queue.add(() => attempt(delivery));
      }
      clearTimeout(timer);
      // A delivery already due but left for lack of room is taken when a send finishes.
      if (nextAt !== null && nextAt > now && !closing) {
        // Capped, so a clock jump or a missed wake-up costs at most a minute.
        timer = setTimeout(() => void tick(), Math.min(60_000, Math.max(10, nextAt - Date.now())));
        timer.unref();
      }
    } finally {
      ticking = false;
      if (again) {
        again = false;
        void tick();
      }
    }
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
      queue.clear();
      const settled = queue.onIdle().then(() => Promise.all(journaling));
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      stopped = true;
    },
  };
}
