import type { TaskError } from '../domain/task-status.js';
import { isoTime } from '../domain/time.js';
import { type EventBus, settledEventKind } from '../services/event-bus.js';
import type { Clock } from '../services/ports.js';
import {
  finishedItems,
  type ItemRecord,
  preparedOnce,
  settledItems,
  type TaskRecord,
  type TaskSettlement,
} from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { AnyTaskType, TaskTypeRegistry } from './task-registry.js';

/** How a task's unfinished items end when it is ended from outside: a cancel, or its deadline passing. */
interface Ending {
  code: 'TASK_CANCELLED' | 'TASK_EXPIRED';
  itemMessage: string;
  taskMessage: string;
}
const CANCELLED: Ending = {
  code: 'TASK_CANCELLED',
  itemMessage: 'the task was cancelled before this item finished',
  taskMessage: 'the task was cancelled; nothing was charged',
};
const EXPIRED: Ending = {
  code: 'TASK_EXPIRED',
  itemMessage: 'the task’s deadline (Cancel-After) passed before this item finished',
  taskMessage: 'the task’s deadline (Cancel-After) passed before any item finished; nothing was charged',
};

/** Records each item's outcome and settles tasks: charges, refunds and the settlement event. */
export interface TaskSettler {
  definition(type: string): AnyTaskType;
  getTask(id: string): Promise<TaskRecord | undefined>;
  /** Settles the task once no item is pending; a no-op before that or if already settled. */
  settleIfDone(taskId: string): Promise<TaskRecord | undefined>;
  /** Fails a pending task as a whole (prepare failed, queueing failed, swept); undefined when it had settled. */
  fail(taskId: string, errors: TaskError[]): Promise<TaskRecord | undefined>;
  /**
   * Records one finished item, then settles the task if it was the last. The last item is
   * recorded with the settlement in one journal write (the store refuses it if that item or
   * the task is no longer pending); one finishing while others run gets its own write.
   * `known`: the task as read earlier (before the item ran), used instead of a fresh read:
   * items only leave pending, so the other items it shows finished are final, and the store
   * refuses the write if this item or the task is no longer pending. `prepared`: what prepare
   * worked out, kept with this write if the task has none yet (the plan is journaled with the
   * first item made with it). Answers whether this item was recorded (false: the task or the
   * item was no longer pending).
   */
  finishItem(
    taskId: string,
    index: number,
    item: ItemRecord,
    options?: { known?: TaskRecord; prepared?: unknown },
  ): Promise<boolean>;
  /**
   * Cancels a pending task (POST /tasks/{id}/cancel) through the one settlement: `task:settled`
   * fires once, and the runner holding its items aborts them. An item finishing meanwhile
   * makes it work the settlement out again. Undefined when the task had settled.
   */
  cancel(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Its deadline (Cancel-After) passed: as a cancel, its unfinished items fail with TASK_EXPIRED
   * (free) and the runner takes its running ones off their engines; what finished stays and is
   * charged. Undefined when the task had settled.
   */
  expire(taskId: string): Promise<TaskRecord | undefined>;
}

/**
 * The work side of tasks: what the runner records as items finish, and settlement. Settling
 * charges the successful items and releases the rest of the reserve in one store write, then
 * emits `task:settled` once.
 */
export function createTaskSettler(deps: {
  store: Store;
  registry: TaskTypeRegistry;
  clock: Clock;
  events: EventBus;
}): TaskSettler {
  const { store, registry, clock, events } = deps;

  const definition = (type: string): AnyTaskType => registry.named(type);

  async function settle(
    task: TaskRecord,
    status: 'completed' | 'failed',
    result: unknown,
    errors?: TaskError[],
    lastItem?: TaskSettlement['lastItem'],
    cancel?: Pick<TaskSettlement, 'finished' | 'unfinishedItem'>,
    prepared?: unknown,
  ): Promise<TaskRecord | undefined> {
    // Only successful items are charged; a failed task is free.
    const cost =
      status === 'failed'
        ? 0
        : task.items.reduce((sum, item) => sum + (item.status === 'success' ? (item.cost ?? 0) : 0), 0);
    const settlement: TaskSettlement = { id: task.id, status, result, cost, at: isoTime(clock.now()) };
    if (errors) settlement.errors = errors;
    if (lastItem) settlement.lastItem = lastItem;
    if (cancel) Object.assign(settlement, cancel);
    if (prepared !== undefined) settlement.prepared = prepared;
    if (!(await events.hasAudience(task, status))) settlement.noEvent = true;
    const settled = await store.tasks.settle(settlement);
    if (settled) events.emit('task:settled', { kind: settledEventKind(settled), task: settled });
    return settled;
  }

  /** Settles the task once no item is pending; a no-op before that or if already settled. */
  async function settleIfDone(taskId: string): Promise<TaskRecord | undefined> {
    const task = await store.tasks.get(taskId);
    if (task?.status !== 'pending' || task.items.some((item) => item.status === 'pending')) return undefined;
    const outcome = definition(task.type).settle(task, task.request);
    return settle(task, outcome.status, outcome.result, outcome.errors);
  }

  /**
   * Settles a pending task as cancelled (or expired: `code`), worked out from the items finished
   * now: the others fail with `code`, in the stored task too (the settlement writes them). With a
   * successful item the type settles it as it would have (charged for those items only); with
   * none it fails with `code` and is free. The store refuses it if another item finished since (undefined).
   */
  function settleUnfinished(task: TaskRecord, ending: Ending): Promise<TaskRecord | undefined> {
    const cancel = {
      finished: finishedItems(task),
      unfinishedItem: {
        status: 'failed',
        error: { code: ending.code, message: ending.itemMessage },
      } satisfies ItemRecord,
    };
    const cancelled: TaskRecord = { ...task, items: settledItems(task.items, cancel) };
    if (!task.items.some((item) => item.status === 'success')) {
      return settle(cancelled, 'failed', null, [{ code: ending.code, message: ending.taskMessage }], undefined, cancel);
    }
    const outcome = definition(task.type).settle(cancelled, cancelled.request);
    return settle(cancelled, outcome.status, outcome.result, outcome.errors, undefined, cancel);
  }

  /**
   * Ends a pending task's unfinished items `ending`'s way through the one settlement, again while items finish
   * meanwhile. Undefined when it had settled.
   */
  async function end(taskId: string, ending: Ending): Promise<TaskRecord | undefined> {
    for (;;) {
      const task = await store.tasks.get(taskId);
      if (task?.status !== 'pending') return undefined;
      const settled = await settleUnfinished(task, ending);
      if (settled) return settled;
    }
  }

  return {
    definition,
    getTask: (id: string) => store.tasks.get(id),
    settleIfDone,

    /** Fails a pending task as a whole (prepare failed, queueing failed, swept); undefined when it had settled. */
    async fail(taskId: string, errors: TaskError[]): Promise<TaskRecord | undefined> {
      const task = await store.tasks.get(taskId);
      if (task?.status !== 'pending') return undefined;
      return settle(task, 'failed', null, errors);
    },

    /**
     * Records one finished item, then settles the task if it was the last. The last item is
     * recorded with the settlement in one journal write (the store refuses it if that item or
     * the task is no longer pending); one finishing while others run gets its own write.
     * `known`: the task as read earlier (before the item ran), used instead of a fresh read:
     * items only leave pending, so the other items it shows finished are final, and the store
     * refuses the write if this item or the task is no longer pending. `prepared`: what prepare
     * worked out, kept with this write if the task has none yet (the plan is journaled with the
     * first item made with it). Answers whether this item was recorded (false: the task or the
     * item was no longer pending).
     */
    async finishItem(
      taskId: string,
      index: number,
      item: ItemRecord,
      options: { known?: TaskRecord; prepared?: unknown } = {},
    ): Promise<boolean> {
      const task = options.known ?? (await store.tasks.get(taskId));
      if (task?.status !== 'pending' || task.items[index]?.status !== 'pending') return false;
      const { prepared } = options;
      if (task.items.some((other, i) => i !== index && other.status === 'pending')) {
        const recorded = await store.tasks.recordItem(taskId, index, item, isoTime(clock.now()), prepared);
        if (recorded) events.emit('task:item', { task: recorded });
        if (recorded) await settleIfDone(taskId);
        return recorded !== undefined;
      }
      const items = task.items.slice();
      items[index] = item;
      // The type's settle reads what prepare worked out (a magic prompt in the result): the plan this write keeps.
      const finished: TaskRecord = { ...task, items, ...preparedOnce(task, prepared) };
      const outcome = definition(task.type).settle(finished, finished.request);
      return (
        (await settle(
          finished,
          outcome.status,
          outcome.result,
          outcome.errors,
          { index, item },
          undefined,
          prepared,
        )) !== undefined
      );
    },

    /**
     * Cancels a pending task (POST /tasks/{id}/cancel) through the one settlement: `task:settled`
     * fires once, and the runner holding its items aborts them. An item finishing meanwhile
     * makes it work the settlement out again. Undefined when the task had settled.
     */
    cancel: (taskId: string): Promise<TaskRecord | undefined> => end(taskId, CANCELLED),

    /**
     * Its deadline (Cancel-After) passed: as a cancel, its unfinished items fail with TASK_EXPIRED
     * (free) and the runner takes its running ones off their engines; what finished stays and is
     * charged. Undefined when the task had settled.
     */
    expire: (taskId: string): Promise<TaskRecord | undefined> => end(taskId, EXPIRED),
  };
}
