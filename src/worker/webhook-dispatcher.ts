import PQueue from 'p-queue';
import type { ConfigSource } from '../config/source.js';
import type { EventBus } from '../services/events.js';
import type { DeliveryRecord, Outbox } from '../services/outbox.js';

/**
 * Sends due deliveries: wakes on `delivery:due` and when the earliest retry falls due, runs
 * at most `webhooks.concurrency` at once (a reload resizes it), journals each attempt. After
 * a restart it simply finds the pending deliveries in the store.
 */
export function createWebhookDispatcher(options: {
  outbox: Outbox;
  events: EventBus;
  config: ConfigSource;
  send: (delivery: DeliveryRecord, message: { id: string; body: string; secret?: string }) => Promise<{ status: number | null; latencyMs: number; error?: string }>;
  log: (message: string) => void;
}) {
  const { outbox } = options;
  const queue = new PQueue({ concurrency: options.config.current().webhooks.concurrency });
  const subscriptions = [
    options.events.on('delivery:due', () => kick()),
    options.config.onChange((next) => {
      queue.concurrency = next.webhooks.concurrency;
    }),
  ];
  const inFlight = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let ticking = false;
  let again = false;

  async function attempt(delivery: DeliveryRecord): Promise<void> {
    try {
      const message = await outbox.message(delivery);
      const result = 'skip' in message ? message : await options.send(delivery, message);
      if (!stopped) await outbox.recordAttempt(delivery, result);
    } catch (err) {
      options.log(`webhooks: delivery ${delivery.id} attempt not recorded: ${(err as Error).message}`);
    } finally {
      inFlight.delete(delivery.id);
      kick();
    }
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      for (const delivery of await outbox.due(Date.now())) {
        if (inFlight.has(delivery.id)) continue;
        inFlight.add(delivery.id);
        void queue.add(() => attempt(delivery));
      }
      const next = await outbox.nextDueAt();
      clearTimeout(timer);
      if (next !== null && !stopped) {
        // Capped, so a clock jump or a missed wake-up costs at most a minute.
        timer = setTimeout(() => void tick(), Math.min(60_000, Math.max(10, next - Date.now())));
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
    if (!stopped) setImmediate(() => void tick());
  }

  return {
    start: kick,
    /** Stops sending; attempts in flight get `graceMs` to finish and be journaled. */
    async close(graceMs: number): Promise<void> {
      for (const unsubscribe of subscriptions) unsubscribe();
      clearTimeout(timer);
      queue.clear();
      await Promise.race([queue.onIdle(), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      stopped = true;
    },
  };
}
