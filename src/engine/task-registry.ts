import type { z } from 'zod';
import { AppError } from '../domain/errors.js';
import type { LivePreview } from '../domain/media-types.js';
import type { Micros } from '../domain/money.js';
import type { Scope } from '../domain/scopes.js';
import type { TaskError, TaskErrorCode } from '../domain/task-status.js';
import type { StoredFile, TaskRecord } from '../store/records.js';

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
  /**
   * How far this attempt of the item has come, 0..1, from the provider where it reports it
   * (ComfyUI progress messages, A1111's /sdapi/v1/progress, the embedded models' steps). Cheap
   * to call often: the engine keeps the latest and announces changes at most a few times a second.
   */
  reportProgress?: (fraction: number) => void;
  /**
   * Hands over a live preview of this attempt's output (a small JPEG or PNG the engine sends while
   * it works): the engine keeps the latest per item, relays it at most a few times a second as a
   * `preview` event of the task's stream, and forgets it when the task settles (never stored).
   */
  reportPreview?: (preview: LivePreview) => void;
  /**
   * The provider of the lane this item should try first (model affinity: it last ran the same model); undefined: the
   * type's own order.
   */
  preferredProvider?: string;
  /**
   * Says the engine has answered: the item's lane slot goes to the next item at once, while this
   * one stores and records its output outside the slot (engines never wait on our bookkeeping).
   * Call it right after the provider call returns; a retry after it runs without a slot.
   */
  engineDone?: () => void;
  /**
   * Names the files this run stored (an output, a video's poster), as soon as each is stored:
   * the item keeps them (ItemRecord.files, never shown), so deleting the task removes them, and a
   * run whose item is not recorded (its task cancelled meanwhile) has them removed at once.
   */
  storedFiles?: (files: readonly StoredFile[]) => void;
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
 * What a task type brings to the generic engine, in two parts.
 *
 * The request part, used when a task is created or estimated: the body its create route
 * takes, what the task keeps of it, the scope, checks beyond the schema, and the cost of
 * each item. The work part, used by the worker: the lane, how to prepare, run one item and
 * turn the finished items into the task's result.
 *
 * `Body` is the parsed body of the create route; `Req` is the task's stored `request`.
 */
export interface TaskTypeDefinition<Body = unknown, Req = Body> {
  type: string;
  /** The scope an API key or access token needs to create it (and to estimate it). */
  scope: Scope;

  /** The create route's body schema; a function because some depend on config (the model ids). */
  body(): z.ZodType<Body>;
  /** What the task keeps of a parsed body (the task's `request`, docs/api/tasks.md). */
  toRequest(body: Body): Req;
  /**
   * Checks beyond the schema, before anything is reserved; throws AppError (VALIDATION_ERROR).
   * `scopes`: the credential's, for a field that needs a scope of its own (`workflow`: workflow:raw).
   */
  validate?(request: Req, ctx: { accountId: string; scopes?: readonly string[] }): Promise<void> | void;
  itemCount(request: Req): number;
  /** Charged for one successful item. The reserve is the sum over items. */
  itemCost(request: Req, index: number): Micros;

  /** The work lane (its own slots and fair order: engine/runner/lanes.ts) items run in. */
  lane(request: Req): string;
  /** The model its items run, once prepared: an item goes first to a provider that last ran it (model affinity). */
  affinity?(task: TaskRecord, prepared: Prepared): string | undefined;
  /** Attempts per item for retryable failures (4 per image, 3 per video: docs/api/tasks.md). */
  maxAttempts: number;
  /**
   * Work before the items (resolving a model, a size, fetching inputs); a ProviderError fails
   * the whole task. It runs again after a restart, seeing `task.prepared` (what it saved the
   * first time), so a non-deterministic step is not redone. `signal` aborts when the task is
   * cancelled or the worker stops: every fetch and provider call it makes takes it.
   */
  prepare?(task: TaskRecord, request: Req, signal: AbortSignal): Promise<Prepared>;
  /** The code an item reports for a final failure, when the type allows fewer codes than providers give. */
  itemErrorCode?(code: TaskErrorCode): TaskErrorCode;
  /** Runs one item; throws ProviderError when it fails. */
  runItem(ctx: ItemContext<Req>): Promise<unknown>;
  /** The task's status and result once every item is done. */
  settle(task: TaskRecord, request: Req): Settled;
}

/** Any task type, as the engine holds them (the request is only known to its own type). */
// biome-ignore lint/suspicious/noExplicitAny: a registry of definitions whose body and request types differ by type
export type AnyTaskType = TaskTypeDefinition<any, any>;

export class TaskTypeRegistry {
  private readonly types = new Map<string, AnyTaskType>();
  register(definition: AnyTaskType): void {
    if (this.types.has(definition.type)) throw new Error(`task type ${definition.type} is registered twice`);
    this.types.set(definition.type, definition);
  }
  get(type: string): AnyTaskType | undefined {
    return this.types.get(type);
  }
  /** The registered type named `type`; VALIDATION_ERROR, listing the known ones, when there is none. */
  named(type: string): AnyTaskType {
    const definition = this.types.get(type);
    if (!definition)
      throw new AppError('VALIDATION_ERROR', `no task type "${type}"; known: ${[...this.types.keys()].join(', ')}`);
    return definition;
  }
  list(): AnyTaskType[] {
    return [...this.types.values()];
  }
}
