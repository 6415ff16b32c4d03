import { formatUsd } from '../domain/money.js';
import type { TaskRecord } from '../store/records.js';

const metadataOf = (task: TaskRecord): unknown => {
  const request = task.request as { metadata?: unknown } | null;
  return request && typeof request === 'object' && 'metadata' in request ? request.metadata : null;
};

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
  view.metadata = metadataOf(task);
  return view;
}

/** GET /tasks/{id}/result. */
export const toResultView = (task: TaskRecord) => ({
  id: task.id,
  status: task.status,
  type: task.type,
  result: task.status === 'pending' ? null : (task.result ?? null),
});

export { metadataOf };
