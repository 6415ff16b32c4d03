import { AppError } from '../domain/errors.js';
import { sortableId } from '../domain/ids.js';
import type { Micros } from '../domain/money.js';
import { TASK_EXPIRY_MS } from '../domain/task-status.js';
import { isoTime } from '../domain/time.js';
import type { Principal } from '../services/auth.js';
import type { EventBus } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import type { SpaceGuard } from '../services/space-guard.js';
import type { TokenService } from '../services/tokens.js';
import { unreachableWebhookUrl, type WebhookUrlCheck } from '../services/webhooks/webhook-url.js';
import type { ItemRecord, TaskRecord } from '../store/records.js';
import type { Store, TaskListQuery } from '../store/store-contract.js';
import type { Deadlines } from './deadlines.js';
import type { TaskIntake } from './intake/intake-types.js';
import type { LiveProgress } from './live-progress.js';
import type { LoadLimits } from './load-limits.js';
import { createPendingGauge } from './pending-gauge.js';
import type { AnyTaskType, TaskTypeRegistry } from './task-registry.js';
import type { TaskSettler } from './task-settler.js';

export interface CreatedTask {
  task: TaskRecord;
  estimate: Micros;
  publicAccessToken?: string;
}

/** What creating a task would reserve: the request the task would keep, and each item's cost. */
export interface Estimate {
  type: AnyTaskType;
  request: unknown;
  items: Micros[];
  total: Micros;
}

export interface TaskServiceDeps {
  store: Store;
  registry: TaskTypeRegistry;
  settlement: TaskSettler;
  /**
   * Where created tasks go to be worked on (this process's runner, or the processes sharing the store), and how long
   * this process's lanes' backlog is.
   */
  intake: Pick<TaskIntake, 'enqueue' | 'leaseForCreate' | 'queueDelayMs'>;
  tokens: TokenService;
  clock: Clock;
  events: EventBus;
  limits: LoadLimits;
  log: (message: string) => void;
  /** Refuses creates (507 STORAGE_FULL) while free space is below store.minFreeBytes; none: never refused. */
  space?: Pick<SpaceGuard, 'admit'>;
  /**
   * Where a pending task stands in memory (running items' fractions, queue position, estimates); none: nothing known.
   */
  live?: (taskId: string) => LiveProgress | undefined;
  /** Where tasks created with a Cancel-After wait for their deadline in this process. */
  deadlines?: Pick<Deadlines, 'add'>;
  /** Refuses a `webhook.custom` URL deliveries could never reach; none: not checked. */
  checkWebhookUrl?: WebhookUrlCheck;
}

/** A request's `priority` (every create body has one: tasks/request-parts.ts), 0 when absent. */
const priorityOf = (request: unknown): number => {
  const priority = (request as { priority?: unknown } | null)?.priority;
  return typeof priority === 'number' ? priority : 0;
};

/** The request side of tasks: create, read, list, cancel, delete, and expiry. */
export interface TaskService {
  /** What a create of `type` with `body` would cost, without creating it. */
  estimate(principal: Principal, type: string, body: unknown): Promise<Estimate>;
  /** The registered type named `type`; VALIDATION_ERROR, listing the known ones, when there is none. */
  typeNamed(type: string): AnyTaskType;
  /**
   * Creates a task from a body its type's schema parsed: load limits, the estimate (the
   * type's own checks included), the queue-delay bound of its lane, then the task record and its reserve in one atomic
   * store
   * write, then the intake. If queueing fails the task is failed with ENQUEUE_FAILED, its
   * reserve released, and the call answers 500.
   */
  create(
    principal: Principal,
    type: string,
    body: unknown,
    options: { pat: boolean; cancelAfterMs?: number },
  ): Promise<CreatedTask>;
  /** An account's tasks, newest first, a page at a time. */
  list: (accountId: string, query: TaskListQuery) => Promise<{ tasks: TaskRecord[]; more: boolean }>;
  /**
   * Where a pending task stands beyond its recorded items (in memory: this process's runner, or relayed from the one
   * running it).
   */
  liveProgress(taskId: string): LiveProgress | undefined;
  /** The owner's task (GET /tasks/{id}): another account's task is TASK_NOT_FOUND. */
  getOwned(principal: Principal, id: string): Promise<TaskRecord>;
  /** For status and result: the owner's API key, or a PAT minted for this very task. */
  getReadable(principal: Principal, id: string): Promise<TaskRecord>;
  /**
   * Cancels the owner's pending task (POST /tasks/{id}/cancel), through the one settlement;
   * another account's task is TASK_NOT_FOUND, a settled one (or one settling first) TASK_NOT_PENDING.
   */
  cancel(principal: Principal, id: string): Promise<TaskRecord>;
  /** Fails every task pending 24 h after its last update with TASK_EXPIRED (reserve released). */
  sweep(): Promise<string[]>;
  /**
   * Ends the pending tasks whose deadline (Cancel-After) has passed, as their own process's timer
   * would (TASK_EXPIRED), at most `limit` at a time: the deadlines of tasks whose process went
   * away are kept here (a fleet's poll, under a lock: intake/shared.ts). Answers those it ended.
   */
  expireDue(limit?: number): Promise<string[]>;
  /** Resolves with the task once settled, or as it stands after `timeoutMs`. */
  waitForSettled(id: string, timeoutMs: number): Promise<TaskRecord>;
}

/** The request side of tasks: estimate, create, read, list, sweep and waiting for a settlement. */
export function createTaskService(deps: TaskServiceDeps): TaskService {
  const { store, registry, settlement, intake, clock, events } = deps;
  const pendingTasks = createPendingGauge(
    () => store.tasks.countPending(),
    () => clock.now(),
  );

  /**
   * A task's own endpoints (`webhook.custom[].url`) are refused as a dashboard webhook's are: when given, with nothing
   * created.
   */
  function checkCustomWebhooks(request: unknown): void {
    const custom = (request as { webhook?: { custom?: { url: string }[] } } | null)?.webhook?.custom ?? [];
    for (const [index, { url }] of custom.entries()) {
      const refusal = deps.checkWebhookUrl?.(url);
      if (refusal) throw unreachableWebhookUrl(url, refusal, `webhook.custom[${index}].url`);
    }
  }

  /**
   * The type's request part over a body its schema already parsed: what the task keeps, the
   * type's own checks (VALIDATION_ERROR), then the cost of each item. Creating and
   * `POST /tasks/estimate` both go through here, so an estimate is what a create reserves.
   */
  async function estimate(principal: Principal, type: string, body: unknown): Promise<Estimate> {
    const def = settlement.definition(type);
    const request = def.toRequest(body);
    checkCustomWebhooks(request);
    await def.validate?.(request, { accountId: principal.accountId, scopes: principal.scopes });
    const items = Array.from({ length: def.itemCount(request) }, (_, index) => def.itemCost(request, index));
    return { type: def, request, items, total: items.reduce((a, b) => a + b, 0) };
  }

  return {
    estimate,

    /** The registered type named `type`; VALIDATION_ERROR, listing the known ones, when there is none. */
    typeNamed(type: string): AnyTaskType {
      return registry.named(type);
    },

    /**
     * Creates a task from a body its type's schema parsed: load limits, the estimate (the
     * type's own checks included), the queue-delay bound of its lane, then the task record and its reserve in one
     * atomic store
     * write, then the intake. If queueing fails the task is failed with ENQUEUE_FAILED, its
     * reserve released, and the call answers 500.
     */
    async create(
      principal: Principal,
      type: string,
      body: unknown,
      options: { pat: boolean; cancelAfterMs?: number },
    ): Promise<CreatedTask> {
      await deps.space?.admit();
      const credentialId = principal.kind === 'apiKey' ? principal.keyId : `token:${principal.accountId}`;
      deps.limits.check(credentialId, await pendingTasks.read(deps.limits.maxPendingTasks()));
      const { type: def, request, items: costs, total } = await estimate(principal, type, body);
      // A type that cannot name its lane fails at enqueue (ENQUEUE_FAILED), not here.
      let lane: string | undefined;
      try {
        lane = def.lane(request);
      } catch {
        lane = undefined;
      }
      deps.limits.checkQueueDelay(() => {
        if (lane === undefined) throw new Error('no lane');
        return intake.queueDelayMs(lane);
      });
      const now = clock.now();
      const key = principal.kind === 'apiKey' ? await store.apiKeys.get(principal.keyId) : undefined;
      const priority = priorityOf(request);
      const maxPriority = key?.maxPriority ?? 0;
      if (priority > maxPriority) {
        throw new AppError(
          'VALIDATION_ERROR',
          `priority ${priority} is above the highest this ${key ? 'key' : 'credential'} may ask for (maxPriority ${maxPriority})`,
        );
      }
      const record: TaskRecord = {
        id: sortableId('tsk', now),
        type,
        status: 'pending',
        accountId: principal.accountId,
        apiKeyId: key?.id ?? null,
        request,
        items: costs.map((): ItemRecord => ({ status: 'pending' })),
        estimate: total,
        cost: 0,
        result: null,
        createdAt: isoTime(now),
        updatedAt: isoTime(now),
      };
      if (priority !== 0) record.priority = priority;
      if (options.cancelAfterMs !== undefined) record.deadlineAt = new Date(now + options.cancelAfterMs).toISOString();
      const spendingLimit =
        key?.spendingLimit === undefined ? undefined : { limit: key.spendingLimit, period: key.spendingLimitPeriod };
      const lease = lane === undefined ? undefined : intake.leaseForCreate(lane);
      let task: TaskRecord;
      try {
        task = await store.tasks.create(record, {
          spendingLimit,
          lease: lease && { owner: lease.owner, ms: lease.ms },
          lane,
        });
      } catch (err) {
        lease?.unused();
        throw err;
      }

      try {
        intake.enqueue(task, lease);
      } catch (err) {
        deps.log(`task ${task.id}: enqueue failed: ${(err as Error).message}`);
        await settlement.fail(task.id, [
          { code: 'ENQUEUE_FAILED', message: 'the task could not be queued; its reserve was released' },
        ]);
        throw new AppError('ENQUEUE_FAILED', `task ${task.id} could not be queued and was failed; nothing was charged`);
      }
      pendingTasks.created();
      if (task.deadlineAt !== undefined) deps.deadlines?.add(task.id, task.deadlineAt);
      events.emit('task:created', { task });
      const publicAccessToken = options.pat ? await deps.tokens.issuePat(principal.accountId, task.id) : undefined;
      return { task, estimate: total, publicAccessToken };
    },

    list: (accountId: string, query: TaskListQuery) => store.tasks.list(accountId, query),

    /**
     * Where a pending task stands beyond its recorded items (in memory: this process's runner, or relayed from the one
     * running it).
     */
    liveProgress: (taskId: string): LiveProgress | undefined => deps.live?.(taskId),

    /** The owner's task (GET /tasks/{id}): another account's task is TASK_NOT_FOUND. */
    async getOwned(principal: Principal, id: string): Promise<TaskRecord> {
      const task = await store.tasks.get(id);
      if (!task || task.accountId !== principal.accountId) throw new AppError('TASK_NOT_FOUND');
      return task;
    },

    /** For status and result: the owner's API key, or a PAT minted for this very task. */
    async getReadable(principal: Principal, id: string): Promise<TaskRecord> {
      const task = await store.tasks.get(id);
      const allowed =
        task && task.accountId === principal.accountId && (principal.kind !== 'pat' || principal.taskId === id);
      if (!allowed) throw new AppError('TASK_NOT_FOUND');
      return task;
    },

    /**
     * Cancels the owner's pending task (POST /tasks/{id}/cancel), through the one settlement;
     * another account's task is TASK_NOT_FOUND, a settled one (or one settling first) TASK_NOT_PENDING.
     */
    async cancel(principal: Principal, id: string): Promise<TaskRecord> {
      const task = await store.tasks.get(id);
      if (!task || task.accountId !== principal.accountId) throw new AppError('TASK_NOT_FOUND');
      const cancelled = task.status === 'pending' ? await settlement.cancel(id) : undefined;
      if (cancelled) return cancelled;
      const settled = (await store.tasks.get(id)) ?? task;
      throw new AppError('TASK_NOT_PENDING', `task ${id} has already settled: it is ${settled.status}`);
    },

    /** Fails every task pending 24 h after its last update with TASK_EXPIRED (reserve released). */
    async sweep(): Promise<string[]> {
      const cutoff = clock.now() - TASK_EXPIRY_MS;
      const expired: string[] = [];
      for (const task of await store.tasks.listPending()) {
        if (Date.parse(task.updatedAt) > cutoff) continue;
        if (
          await settlement.fail(task.id, [
            { code: 'TASK_EXPIRED', message: 'the task was still pending 24 hours after its last update' },
          ])
        )
          expired.push(task.id);
      }
      return expired;
    },

    /**
     * Ends the pending tasks whose deadline (Cancel-After) has passed, as their own process's timer
     * would (TASK_EXPIRED), at most `limit` at a time: the deadlines of tasks whose process went
     * away are kept here (a fleet's poll, under a lock: intake/shared.ts). Answers those it ended.
     */
    async expireDue(limit = 100): Promise<string[]> {
      const ended: string[] = [];
      for (const id of await store.tasks.pastDeadline(isoTime(clock.now()), limit))
        if (await settlement.expire(id)) ended.push(id);
      return ended;
    },

    /** Resolves with the task once settled, or as it stands after `timeoutMs`. */
    async waitForSettled(id: string, timeoutMs: number): Promise<TaskRecord> {
      let unsubscribe = () => {};
      const settledEvent = new Promise<void>((resolve) => {
        const here = events.on('task:settled', (event) => event.task.id === id && resolve());
        // Settled by another process (a worker on the same database).
        const elsewhere = events.on('task:settled-elsewhere', (event) => event.taskId === id && resolve());
        unsubscribe = () => {
          here();
          elsewhere();
        };
      });
      try {
        const task = await store.tasks.get(id);
        if (task?.status !== 'pending') return task!;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([settledEvent, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
        clearTimeout(timer);
        return (await store.tasks.get(id))!;
      } finally {
        unsubscribe();
      }
    },
  };
}
