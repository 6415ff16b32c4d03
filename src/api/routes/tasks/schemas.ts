import { z } from 'zod';
import { PRIORITY } from '../../../domain/scheduling.js';
import { TASK_STATUSES, type TaskStatus } from '../../../domain/task-status.js';
import type { TaskRecord } from '../../../engine/task-registry.js';
import { toResultView, toTaskView } from '../../../engine/task-views.js';
import { TASK_MODULES } from '../../../task-types/task-modules.js';
import { Timestamp, Usd } from '../../common-schemas.js';

export const TaskStatusSchema = z.enum(TASK_STATUSES as [TaskStatus, ...TaskStatus[]]);
const TaskError = z.object({ code: z.string(), message: z.string().optional() });

/**
 * Where a task stands, item by item: the live status stream's `progress`, and GET /tasks/{id}'s while the task is
 * pending.
 */
export const TaskProgress = z
  .object({
    total: z.number().int(),
    finished: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    items: z.array(
      z.object({
        status: z.enum(['pending', 'success', 'failed']),
        error: TaskError.optional().describe('a failed item'),
        fraction: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            'how far a running item has come, 0..1, where its provider reports it (a retry starts again from 0)',
          ),
      }),
    ),
    queuePosition: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "items queued ahead of this task's first in its lane's order (priority, then accounts taking turns, then arrival; 0: next), while none of its items has started; absent once one has, and where it is not known (not yet queued; on PostgreSQL, another process serving the request)",
      ),
    estimatedStartAt: Timestamp.optional().describe(
      "when its first item should start, while none has: an estimate from the lane's recent item times; absent when unknown",
    ),
    estimatedFinishAt: Timestamp.optional().describe(
      "when its last item should end: an estimate from the lane's recent item times; absent when unknown",
    ),
  })
  .describe(
    'Where the task stands: items finished, and, while pending, live progress held in memory by the process running it (never journaled)',
  );
export type TaskProgress = z.infer<typeof TaskProgress>;

/** The full task object (docs/api/tasks.md), for one task type and its result schema. */
const fullTask = <Type extends string, Result extends z.ZodType>(type: Type, result: Result) =>
  z.object({
    id: z.string(),
    status: TaskStatusSchema,
    type: z.literal(type),
    cost: Usd,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    request: z
      .record(z.string(), z.unknown())
      .describe('the parameters as submitted (for image.rate: mode, urls and, in custom mode, levels)'),
    result: result.nullable().describe('null while pending, and for a failed task that produced nothing'),
    errors: z.array(TaskError).optional().describe('on failed tasks'),
    apiKeyId: z.string().nullable(),
    userId: z.string(),
    metadata: z.unknown().nullable(),
    priority: z
      .number()
      .int()
      .min(PRIORITY.min)
      .max(PRIORITY.max)
      .describe('its place against other work in its lane (the request’s priority; 0 when not given)'),
    deadlineAt: Timestamp.optional().describe(
      'when its unfinished items are cancelled with TASK_EXPIRED (the create’s Cancel-After header); absent without one',
    ),
    progress: TaskProgress.optional().describe(
      'GET /tasks/{id} of a pending task only: where it stands (absent once settled, and in lists)',
    ),
    dataRemoved: z
      .boolean()
      .describe(
        'true once its data was removed (DELETE /tasks/{id}, retention, an account erase): request `{}`, metadata and result null, outputs deleted; id, type, status, cost, owner and timestamps are kept',
      ),
    dataRemovedAt: Timestamp.optional().describe('when its data was removed; absent while it is kept'),
  });

/** What `GET /tasks/{id}/result` shows of a task. */
const taskResult = <Type extends string, Result extends z.ZodType>(type: Type, result: Result) =>
  z.object({
    id: z.string(),
    status: TaskStatusSchema,
    type: z.literal(type),
    result: result.nullable(),
    dataRemoved: z
      .literal(true)
      .optional()
      .describe(
        'present once the task’s data was removed (DELETE /tasks/{id}, retention): why a settled task’s result is null',
      ),
  });

// Mapped over the module tuple (generic, so the tuple stays a tuple): one member per type.
type Module = { type: string; result: z.ZodType };
type FullTasks<M extends readonly Module[]> = {
  -readonly [K in keyof M]: ReturnType<typeof fullTask<M[K]['type'], M[K]['result']>>;
};
type TaskResults<M extends readonly Module[]> = {
  -readonly [K in keyof M]: ReturnType<typeof taskResult<M[K]['type'], M[K]['result']>>;
};

/** A task, by its type: each built-in type with the shape of its own result. */
export const Task = z.discriminatedUnion(
  'type',
  TASK_MODULES.map((m) => fullTask(m.type, m.result)) as unknown as FullTasks<typeof TASK_MODULES>,
);
export type Task = z.infer<typeof Task>;

export const TaskResult = z.discriminatedUnion(
  'type',
  TASK_MODULES.map((m) => taskResult(m.type, m.result)) as unknown as TaskResults<typeof TASK_MODULES>,
);
export type TaskResult = z.infer<typeof TaskResult>;

// The views are built from what each type's module produced, to its result schema (the API
// tests check every answer against these schemas); here they take the schemas' types.
export const taskBody = (task: TaskRecord): Task => toTaskView(task) as Task;
export const taskResultBody = (task: TaskRecord): TaskResult => toResultView(task) as TaskResult;
