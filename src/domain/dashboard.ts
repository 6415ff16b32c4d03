/**
 * What the operator's dashboard shows: the operator service computes it, the admin socket carries
 * it, and the terminal dashboard draws it. It lives here, in domain, because the service and the
 * terminal views are layers that may not import each other; both may import domain.
 */

export interface DashboardFigures {
  url: string;
  generatedAt: string;
  counts: { pending: number; completed: number; failed: number };
  /** Tasks settled in the last minute. */
  throughputPerMinute: number;
  failures: { code: string; count: number }[];
  accounts: { name: string; balance: string; reserved: string; available: string }[];
  webhooks: {
    pending: number;
    delivered: number;
    failed: number;
    disabled: { id: string; url: string; reason: string }[];
  };
  /** Each lane with work or a pause (the fleet's on a shared database). */
  lanes: LaneFigures[];
  tasks: DashboardTask[];
}

/** One of the newest tasks as the dashboard lists it. */
export interface DashboardTask {
  id: string;
  type: string;
  status: 'pending' | 'completed' | 'failed';
  account: string;
  cost: string;
  createdAt: string;
  updatedAt: string;
  errorCode?: string;
  /** A pending task's progress, as GET /tasks/{id} shows it. */
  progress?: DashboardProgress;
}

/**
 * Where a pending task stands (the API's task progress): items finished, running items' fractions, queue position,
 * estimates.
 */
export interface DashboardProgress {
  total: number;
  finished: number;
  items: { status: string; fraction?: number }[];
  queuePosition?: number;
  estimatedStartAt?: string;
  estimatedFinishAt?: string;
}

/**
 * One lane as operators see it: `imgtask queues`, the dashboards, /metrics and /ready (docs/scheduling.md#operators).
 */
export interface QueueView {
  lane: string;
  /** Items waiting to start. */
  queued: number;
  /** Items holding a slot now. */
  running: number;
  /** Slots: how many items the lane runs at once (summed over the fleet's processes on PostgreSQL). */
  capacity: number;
  /** How long the oldest waiting item has waited, in seconds (0 with none waiting). */
  oldestQueuedSeconds: number;
  paused: boolean;
  /** When an operator paused it. */
  pausedAt?: string;
  /** The accounts with the most items waiting, most first. */
  topAccounts: { account: string; queued: number }[];
}

/** A lane as operators see it: the engine's report, each top account named. */
export interface LaneFigures extends Omit<QueueView, 'topAccounts'> {
  topAccounts: { account: string; name: string; queued: number }[];
}
