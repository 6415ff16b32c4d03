import type { ConfigSource } from '../config/source.js';
import { BILLING_THRESHOLD_EVENT } from '../domain/event-kinds.js';
import { sortableId } from '../domain/ids.js';
import { formatUsd, type Micros } from '../domain/money.js';
import { periodKey } from '../domain/periods.js';
import { isoTime } from '../domain/time.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { BillingAlertRecord, EventRecord, TaskRecord, WebhookRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import { newDelivery } from './new-delivery.js';

/** A budget and what of it is used, for one scope and period. */
interface Budget {
  scope: 'account' | 'key';
  apiKeyId?: string;
  period: string;
  used: Micros;
  limit: Micros;
}

/** Budget alerts, checked after each charging settlement of this process. */
export interface BillingAlerts {
  /** Records what `task`'s settlement made reached; answers the alerts recorded (by this call). */
  check(task: TaskRecord): Promise<BillingAlertRecord[]>;
  /** Stops checking settlements (checks under way still finish: see `idle`). */
  close(): void;
  /** Resolves once every check started so far has finished. */
  idle(): Promise<void>;
}

const subscribed = (webhook: WebhookRecord): boolean =>
  webhook.enabled &&
  (webhook.events === null || webhook.events.includes('all') || webhook.events.includes(BILLING_THRESHOLD_EVENT));

/**
 * Budget alerts: after each charging settlement (`task:settled`, in the process that settled
 * it), the account's month and the key's spending limit period are compared with the
 * configured thresholds (`billing.alerts.thresholds`, percent). A threshold reached for the
 * first time in its period records its mark together with a `billing.threshold_reached` event
 * and the event's deliveries, in one store write that only one caller can win (the mark is
 * unique per scope, period and threshold): one event however many settlements race.
 *
 * - account: used = charged in the current UTC calendar month (by settlement time); limit =
 *   used + the balance now, i.e. the balance at the month's start plus the month's credits.
 * - key (with a spending limit): used = the key's spend in its limit's period (charges plus
 *   pending reserves, as the limit counts it); limit = the spending limit.
 *
 * Only accounts with an enabled webhook subscribed to the event (`all` or the kind) are
 * checked; a key's event goes to those webhooks not bound to other keys.
 */
export function createBillingAlerts(deps: {
  store: Store;
  clock: Clock;
  config: Pick<ConfigSource, 'current'>;
  events: EventBus;
  log: (message: string) => void;
}): BillingAlerts {
  const { store, clock, events } = deps;

  async function budgets(task: TaskRecord): Promise<Budget[]> {
    const out: Budget[] = [];
    const month = task.updatedAt.slice(0, 7);
    const budget = await store.billing.monthBudget(task.accountId, month);
    if (budget)
      out.push({
        scope: 'account',
        period: month,
        used: budget.charged,
        limit: budget.charged + Math.max(0, budget.balance),
      });
    if (task.apiKeyId !== null) {
      const key = await store.apiKeys.get(task.apiKeyId);
      if (key?.spendingLimit !== undefined) {
        const millis = Date.parse(task.createdAt); // the period the task's charge counts in
        const used = await store.tasks.keySpend(key.id, key.spendingLimitPeriod, millis);
        out.push({
          scope: 'key',
          apiKeyId: key.id,
          period: periodKey(key.spendingLimitPeriod, millis),
          used,
          limit: key.spendingLimit,
        });
      }
    }
    return out;
  }

  /** Records what `task`'s settlement made reached; answers the alerts recorded (by this call). */
  async function check(task: TaskRecord): Promise<BillingAlertRecord[]> {
    if (task.status === 'pending' || task.cost <= 0) return [];
    const thresholds = [...new Set(deps.config.current().billing.alerts.thresholds)].sort((a, b) => a - b);
    if (thresholds.length === 0) return [];
    const webhooks = (await store.webhooks.listByAccount(task.accountId)).filter(subscribed);
    if (webhooks.length === 0) return [];
    const recorded: BillingAlertRecord[] = [];
    for (const budget of await budgets(task)) {
      if (budget.limit <= 0) continue;
      const targets =
        budget.apiKeyId === undefined
          ? webhooks
          : webhooks.filter((w) => w.apiKeyIds.length === 0 || w.apiKeyIds.includes(budget.apiKeyId!));
      if (targets.length === 0) continue;
      for (const threshold of thresholds) {
        // Integer arithmetic: used / limit >= threshold %.
        if (budget.used * 100 < threshold * budget.limit) break;
        const id = `${budget.apiKeyId ?? task.accountId}|${budget.period}|${threshold}`;
        if (await store.billing.getAlert(id)) continue;
        const alert = await record(task.accountId, id, budget, threshold, targets);
        if (alert) recorded.push(alert);
      }
    }
    if (recorded.length > 0) events.emit('delivery:due', {});
    return recorded;
  }

  async function record(
    accountId: string,
    id: string,
    budget: Budget,
    threshold: number,
    targets: WebhookRecord[],
  ): Promise<BillingAlertRecord | undefined> {
    const now = clock.now();
    const at = isoTime(now);
    const eventId = sortableId('evt', now);
    const data: Record<string, unknown> = { scope: budget.scope, accountId };
    if (budget.apiKeyId !== undefined) data.apiKeyId = budget.apiKeyId;
    Object.assign(data, {
      period: budget.period,
      threshold,
      used: formatUsd(budget.used),
      limit: formatUsd(budget.limit),
    });
    const event: EventRecord = {
      id: eventId,
      type: BILLING_THRESHOLD_EVENT,
      accountId,
      taskId: null,
      createdAt: at,
      payload: { id: eventId, type: BILLING_THRESHOLD_EVENT, createdAt: at, data },
    };
    const deliveries = targets.map((webhook) => newDelivery(event, webhook.url, webhook.id, at));
    const alert: BillingAlertRecord = {
      id,
      scope: budget.scope,
      accountId,
      period: budget.period,
      threshold,
      used: budget.used,
      limit: budget.limit,
      eventId,
      createdAt: at,
    };
    if (budget.apiKeyId !== undefined) alert.apiKeyId = budget.apiKeyId;
    return (await store.billing.recordAlert(alert, event, deliveries)) ? alert : undefined;
  }

  const inFlight = new Set<Promise<unknown>>();
  const unsubscribe = events.on('task:settled', ({ task }) => {
    const checked = check(task)
      .catch((err: Error) =>
        deps.log(
          `billing: budget alerts after task ${task.id} not checked (${err.message}); the next charge checks again`,
        ),
      )
      .finally(() => inFlight.delete(checked));
    inFlight.add(checked);
  });

  return {
    check,
    close: unsubscribe,
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
