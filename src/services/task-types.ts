import type { z } from 'zod';
import type { Micros } from '../domain/money.js';
import type { Scope } from '../domain/scopes.js';
import type { TaskError, TaskErrorCode } from '../domain/tasks.js';
import type { TaskRecord } from '../store/records.js';

/** The records task types and the worker handle, as services expose them. */
export type { ItemRecord, TaskRecord } from '../store/records.js';

export interface ItemContext<Req> {
  task: TaskRecord;
  request: Req;
  index: number;
  /** 1-based; a retry runs the same item again, possibly on another provider. */
  attempt: number;
  /** What `prepare` returned: `saved` is journaled with the task, `runtime` lives in memory only. */
  prepared: Prepared;
  signal: AbortSignal;
}

export interface Prepared {
  saved?: unknown;
  runtime?: unknown;
}

export interface Settled {
  status: 'completed' | 'failed';
  result: unknown;
  errors?: TaskError[];
}

/**
 * What a task type brings to the generic engine: its request schema, how it splits into
 * items and what they cost, how to run an item, and how items become the task's result.
 */
export interface TaskTypeDefinition<Req = unknown> {
  type: string;
  /** The request schema; a function because some depend on config (the model ids). */
  schema(): z.ZodType<Req>;
  /** The scope an API key or access token needs to create it. */
  scope: Scope;
  itemCount(request: Req): number;
  /** Charged for one successful item. The reserve is the sum over items. */
  itemCost(request: Req, index: number): Micros;
  /** The work lane (a p-queue with its own concurrency) items run in. */
  lane(request: Req): string;
  /** Attempts per item for retryable failures (SPEC: 4 per image, 3 per video). */
  maxAttempts: number;
  /** Checks beyond the schema, before anything is reserved; throws AppError (VALIDATION_ERROR). */
  validate?(request: Req, ctx: { accountId: string }): Promise<void> | void;
  /**
   * Work before the items (resolving a model, a size, fetching inputs); a ProviderError fails
   * the whole task. It runs again after a restart, seeing `task.prepared` (what it saved the
   * first time), so a non-deterministic step is not redone.
   */
  prepare?(task: TaskRecord, request: Req): Promise<Prepared>;
  /** The code an item reports for a final failure, when the type allows fewer codes than providers give. */
  itemErrorCode?(code: TaskErrorCode): TaskErrorCode;
  /** Runs one item; throws ProviderError when it fails. */
  runItem(ctx: ItemContext<Req>): Promise<unknown>;
  /** The task's status and result once every item is done. */
  settle(task: TaskRecord, request: Req): Settled;
}

export class TaskTypeRegistry {
  private readonly types = new Map<string, TaskTypeDefinition<unknown>>();
  register<Req>(definition: TaskTypeDefinition<Req>): void {
    this.types.set(definition.type, definition as TaskTypeDefinition<unknown>);
  }
  get(type: string): TaskTypeDefinition<unknown> | undefined {
    return this.types.get(type);
  }
  list(): TaskTypeDefinition<unknown>[] {
    return [...this.types.values()];
  }
}
