import type { ConfigSource } from '../config/source.js';
import type { SingletonDuties } from '../engine/intake/intake-types.js';
import type { AccountErase } from '../services/account-erase.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { Retention } from '../services/retention-sweep.js';
import { deliverWebhook } from '../webhooks/deliver.js';
import { type AttemptOutcome, createWebhookDispatcher } from '../webhooks/dispatcher.js';
import type { Outbox } from '../webhooks/outbox.js';

/**
 * What a working process runs besides tasks; the engine's intake places each (here, or in one process of the fleet).
 */
export function createSingletonDuties(deps: {
  outbox: Outbox;
  accountErase: Pick<AccountErase, 'resumeAll'>;
  retention: Retention;
  events: EventBus;
  config: ConfigSource;
  clock: Clock;
  log: (message: string) => void;
  /** Told of each journaled webhook attempt: its outcome line and its metrics. */
  onAttempt: (outcome: AttemptOutcome) => void;
}): SingletonDuties {
  const { outbox, config, log } = deps;
  /** Finishes the erasures a crash interrupted; a failure is logged, and the next sweep tries again. */
  const resumeErasures = () =>
    deps.accountErase
      .resumeAll()
      .catch((err: Error) =>
        log(`erase: an unfinished erase is not finished yet (${err.message}); the next sweep tries again`),
      );
  return {
    async recover() {
      // Each settlement records its event as it happens; this finds those a crash left out.
      const recovered = await outbox.recoverMissing();
      if (recovered) log(`webhooks: recorded ${recovered} event(s) missing after a crash`);
      // An erase a crash interrupted is finished before this process serves or works (its account takes no request
      // meanwhile).
      await resumeErasures();
    },
    /** Unfinished erasures, then retention: each failure logged, and tried again by the next sweep. */
    async housekeeping() {
      await resumeErasures();
      await deps.retention
        .sweep()
        .catch((err: Error) => log(`retention: the sweep stopped (${err.message}); the next sweep tries again`));
    },
    dispatcher() {
      const dispatcher = createWebhookDispatcher({
        outbox,
        events: deps.events,
        config,
        log,
        onAttempt: deps.onAttempt,
        send: (delivery, message) => {
          const { timeoutMs, allowPrivateAddresses } = config.current().webhooks;
          return deliverWebhook({ url: delivery.url, secret: message.secret }, message, {
            timeoutMs,
            allowPrivateAddresses,
            now: () => deps.clock.now(),
          });
        },
      });
      // A send in flight needs no longer than its own timeout.
      return {
        start: dispatcher.start,
        close: (graceMs) => dispatcher.close(Math.min(graceMs, config.current().webhooks.timeoutMs)),
      };
    },
  };
}
