import { formatUsd } from '../domain/money.js';
import { metadataOf } from '../domain/task-status.js';
import { settledEventKind } from '../services/event-bus.js';
import type { TaskRecord } from '../store/records.js';
import type { LiveProgress } from './live-progress.js';

/**
 * The full task object (GET /tasks/{id}; docs/api/tasks.md). A task whose data was removed
 * (DELETE /tasks/{id}, retention) shows `dataRemoved: true` and when, with its request `{}`
 * and its result null.
 */
export function toTaskView(task: TaskRecord) {
  const view: Record<string, unknown> = {
    id: task.id,
    status: task.status,
    type: task.type,
    cost: formatUsd(task.cost),
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    request: task.request,
    result: task.status === 'pending' ? null : (task.result ?? null),
  };
  if (task.status === 'failed') view.errors = task.errors ?? [];
  view.apiKeyId = task.apiKeyId;
  view.userId = task.accountId;
  view.metadata = metadataOf(task.request);
  view.priority = task.priority ?? 0;
  if (task.deadlineAt !== undefined) view.deadlineAt = task.deadlineAt;
  view.dataRemoved = task.dataRemovedAt !== undefined;
  if (task.dataRemovedAt !== undefined) view.dataRemovedAt = task.dataRemovedAt;
  return view;
}

/** GET /tasks/{id}/result; `dataRemoved: true` says why a settled task's result is null. */
export const toResultView = (task: TaskRecord) => ({
  id: task.id,
  status: task.status,
  type: task.type,
  result: task.status === 'pending' ? null : (task.result ?? null),
  ...(task.dataRemovedAt === undefined ? {} : { dataRemoved: true as const }),
});

/**
 * Where a task stands, item by item (the live status stream's `progress`, and GET /tasks/{id}'s
 * while pending): the items recorded, and, from `live`, each running item's `fraction`, the
 * queue position and the estimates.
 */
export function toProgressView(task: TaskRecord, live?: LiveProgress) {
  let succeeded = 0;
  let failed = 0;
  const pending = task.status === 'pending';
  const items = task.items.map((item, index) => {
    if (item.status === 'success') succeeded++;
    else if (item.status === 'failed') failed++;
    const fraction = pending && item.status === 'pending' ? live?.fractions[index] : undefined;
    if (fraction !== undefined) return { status: item.status, fraction };
    return item.error ? { status: item.status, error: item.error } : { status: item.status };
  });
  const view: {
    total: number;
    finished: number;
    succeeded: number;
    failed: number;
    items: typeof items;
    queuePosition?: number;
    estimatedStartAt?: string;
    estimatedFinishAt?: string;
  } = {
    total: items.length,
    finished: succeeded + failed,
    succeeded,
    failed,
    items,
  };
  if (pending && live) {
    if (live.queuePosition !== undefined) view.queuePosition = live.queuePosition;
    if (live.estimatedStartAt !== undefined) view.estimatedStartAt = live.estimatedStartAt;
    if (live.estimatedFinishAt !== undefined) view.estimatedFinishAt = live.estimatedFinishAt;
  }
  return view;
}

/** A webhook event as a receiver gets it: `{ id, type, createdAt, data }` (docs/api/webhooks.md). */
export interface WebhookEnvelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/**
 * The envelope of a settled task's event, its data the very values of the task endpoints: what
 * the outbox stores for dashboard webhooks and what a live stream (GET /webhook/events) sends.
 */
export function taskEventEnvelope(id: string, createdAt: string, task: TaskRecord): WebhookEnvelope {
  const view = toTaskView(task);
  const data: Record<string, unknown> = { taskId: task.id, taskType: task.type, status: task.status, cost: view.cost };
  if (task.status === 'completed') data.result = view.result;
  else data.errors = view.errors;
  data.metadata = view.metadata;
  // A deleted task's event, rebuilt from what is kept: a redelivery says why it carries nothing.
  if (task.dataRemovedAt !== undefined) data.dataRemoved = true;
  return { id, type: settledEventKind(task), createdAt, data };
}
