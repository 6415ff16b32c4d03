import { formatUsd } from '../domain/money.js';
import { metadataOf } from '../domain/tasks.js';
import type { TaskRecord } from '../store/records.js';

/** The full task object of SPEC part 2 (GET /tasks/{id}). */
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
  return view;
}

/** GET /tasks/{id}/result. */
export const toResultView = (task: TaskRecord) => ({
  id: task.id,
  status: task.status,
  type: task.type,
  result: task.status === 'pending' ? null : (task.result ?? null),
});
