import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueView } from '../domain/dashboard.js';
import type { AnyTaskType } from '../engine/task-registry.js';
import type { Store } from '../store/store-contract.js';
import type { AttemptOutcome } from '../webhooks/dispatcher.js';

/** Seconds: from a cached read (a few ms) to a slow generation or a stalled upload. */
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a rating takes tens of ms, a background removal or a remote generation tens of seconds. */
const ITEM_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * Node's own figures (event-loop lag and its percentiles, heap, GC, CPU, handles) under their
 * usual names (`nodejs_eventloop_lag_seconds` …), collected once per process however many
 * servers it runs (tests run several), in a registry of their own, never prom-client's global one.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface MetricsDeps {
  store: Store;
  /** The worker's lanes, by name: items running, queued, and the lane's concurrency. */
  lanes: () => Record<string, { running: number; queued: number; concurrency: number }>;
  /** Each lane as operators see it: this process's on the file store, the fleet's on PostgreSQL. */
  queues: () => Promise<QueueView[]>;
}

/**
 * How long one reading of the lanes serves scrapes: frequent scrapes (several Prometheus, a dashboard) cost one read.
 */
const QUEUES_FRESH_MS = 2000;

/** `read`, called at most once per `freshMs`: callers within that time share its answer (a failed read is not kept). */
function cached<T>(read: () => Promise<T>, freshMs: number): () => Promise<T> {
  let kept: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = performance.now();
    if (kept && now - kept.at < freshMs) return kept.value;
    const value = read();
    const entry = { at: now, value };
    kept = entry;
    value.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return value;
  };
}

/**
 * The service's metrics, in a registry of its own. Counters and histograms are fed as things
 * happen (requests, item attempts, webhook attempts); gauges are read at scrape time from
 * what is already kept: the store's counts and money indexes (no scan of the tasks), the lanes.
 */
export function createMetrics(deps: MetricsDeps) {
  const { store } = deps;
  const registry = new Registry();
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'imgtask_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'imgtask_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const itemDuration = new Histogram({
    name: 'imgtask_item_attempt_duration_seconds',
    help: 'Time one attempt at a task item takes (the provider call), by task type and outcome (success or failure)',
    labelNames: ['type', 'outcome'] as const,
    buckets: ITEM_BUCKETS,
    registers,
  });
  const webhookAttempts = new Counter({
    name: 'imgtask_webhook_attempts_total',
    help: 'Webhook delivery attempts since start, by outcome: success (2xx) or failure (any other answer, none, or not sent)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookFailures = new Counter({
    name: 'imgtask_webhook_failures_total',
    help: 'Webhook deliveries that ran out of attempts since start (failed for good)',
    registers,
  });
  const retentionRemoved = new Counter({
    name: 'imgtask_retention_removed_total',
    help: 'What the retention sweep removed since start, by kind: outputs (tasks whose outputs and text went), uploads, tasks (task records), deliveries (webhook delivery logs), consoleSessions (expired console sessions and sign-in links)',
    labelNames: ['kind'] as const,
    registers,
  });

  new Gauge({
    name: 'imgtask_tasks',
    help: 'Tasks in the store, by type and status',
    labelNames: ['type', 'status'] as const,
    registers,
    async collect() {
      this.reset();
      for (const { type, status, count } of await store.tasks.countsByTypeStatus()) this.set({ type, status }, count);
    },
  });
  const laneGauge = (
    name: string,
    help: string,
    pick: (lane: { running: number; queued: number; concurrency: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['lane'] as const,
      registers,
      collect() {
        this.reset();
        for (const [lane, stats] of Object.entries(deps.lanes())) this.set({ lane }, pick(stats));
      },
    });
  laneGauge('imgtask_lane_queued', 'Items waiting for a slot in a work lane (its depth)', (lane) => lane.queued);
  laneGauge('imgtask_lane_running', 'Items running in a work lane', (lane) => lane.running);
  laneGauge('imgtask_lane_concurrency', 'Slots of a work lane (items it runs at once)', (lane) => lane.concurrency);
  // The lanes as `imgtask queues` shows them, a signal to scale workers on
  // (docs/scaling.md#scaling-workers-on-queued-work).
  const queues = cached(deps.queues, QUEUES_FRESH_MS);
  const FLEET = "On PostgreSQL the figure is the fleet's, the same from every process: aggregate with max(), not sum()";
  const queueGauge = (name: string, help: string, pick: (view: QueueView) => number) =>
    new Gauge({
      name,
      help: `${help}. ${FLEET}`,
      labelNames: ['lane'] as const,
      registers,
      async collect() {
        const views = await queues();
        this.reset();
        for (const view of views) this.set({ lane: view.lane }, pick(view));
      },
    });
  queueGauge(
    'imgtask_lane_queued_items',
    "Items waiting to start in a lane (a paused lane's included)",
    (view) => view.queued,
  );
  queueGauge('imgtask_lane_running_items', 'Items running in a lane', (view) => view.running);
  queueGauge(
    'imgtask_lane_oldest_queued_seconds',
    'How long the oldest item waiting in a lane has waited, in seconds (0 with none waiting)',
    (view) => view.oldestQueuedSeconds,
  );
  queueGauge(
    'imgtask_lane_capacity',
    'Slots of a lane: items it runs at once (summed over the working processes on PostgreSQL)',
    (view) => view.capacity,
  );
  new Gauge({
    name: 'imgtask_webhook_backlog',
    help: 'Webhook deliveries pending (due now or waiting for a retry)',
    registers,
    async collect() {
      this.set((await store.webhooks.deliveryCounts()).pending);
    },
  });
  new Gauge({
    name: 'imgtask_webhook_deliveries',
    help: 'Webhook deliveries in the store, by status (pending, delivered, failed)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const counts = await store.webhooks.deliveryCounts();
      for (const status of ['pending', 'delivered', 'failed'] as const) this.set({ status }, counts[status]);
    },
  });
  // Money per account, read from the ledger: the reserve is kept as an index; what was charged
  // is the credits less the balance (the balance is credits minus charges).
  const accountGauge = (
    name: string,
    help: string,
    value: (figures: { balance: number; reserved: number; charged: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['account_id', 'account'] as const,
      registers,
      async collect() {
        this.reset();
        for (const account of await store.accounts.list()) {
          const credited = (await store.accounts.credits(account.id)).reduce((sum, credit) => sum + credit.amount, 0);
          const figures = {
            balance: account.balance,
            reserved: await store.tasks.reserved(account.id),
            charged: credited - account.balance,
          };
          this.set({ account_id: account.id, account: account.name }, value(figures) / 1e6);
        }
      },
    });
  accountGauge('imgtask_account_reserved_usd', 'USD held by pending tasks of an account', (f) => f.reserved);
  accountGauge(
    'imgtask_account_charged_usd',
    'USD charged to an account for settled tasks, all time',
    (f) => f.charged,
  );
  accountGauge(
    'imgtask_account_balance_usd',
    'Balance of an account in USD (credits less charges; the reserve is not taken off)',
    (f) => f.balance,
  );

  return {
    /** Counts and times one answered request. */
    observeRequest({
      method,
      route,
      status,
      seconds,
    }: {
      method: string;
      route: string;
      status: number;
      seconds: number;
    }): void {
      const labels = { method, route, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    /** Counts one journaled webhook attempt, and the delivery when it failed for good. */
    observeWebhookAttempt({ delivery, httpStatus }: AttemptOutcome): void {
      const success = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
      webhookAttempts.inc({ outcome: success ? 'success' : 'failure' });
      if (delivery.status === 'failed') webhookFailures.inc();
    },
    /** Counts what one retention sweep removed of a kind. */
    countRetention(kind: string, count: number): void {
      retentionRemoved.inc({ kind }, count);
    },
    /**
     * The task type with each attempt at an item timed. The definition itself is untouched:
     * the result inherits everything from it and only overrides runItem.
     */
    timed(definition: AnyTaskType): AnyTaskType {
      const timed: AnyTaskType = Object.create(definition);
      timed.runItem = async (context) => {
        const end = itemDuration.startTimer({ type: definition.type });
        try {
          const result = await definition.runItem(context);
          end({ outcome: 'success' });
          return result;
        } catch (err) {
          end({ outcome: 'failure' });
          throw err;
        }
      };
      return timed;
    },
    contentType: registry.contentType,
    /** Every metric, the service's then the process's, in the Prometheus text format. */
    async render(): Promise<string> {
      const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
      return `${own}\n${process}`;
    },
  };
}
