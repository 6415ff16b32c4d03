import type { Context } from 'hono';
import { formatUsd } from '../domain/money.js';
import type { TaskRecord } from '../engine/task-registry.js';
import type { Principal } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { cancelAfterOf } from './cancel-after.js';
import type { CreatedTaskResponse } from './routes/image/schemas.js';

/** Puts the task a create made on the request's access line: one info line per create, not two. */
export function noteCreated(c: Context<ApiEnv>, task: TaskRecord): void {
  c.set('created', { taskId: task.id, type: task.type, items: task.items.length, estimateUsd: task.estimate / 1e6 });
}

/** `access.pat.enabled` (default true) decides whether a PAT is returned. */
const patEnabled = (body: unknown): boolean =>
  (body as { access?: { pat?: { enabled?: boolean } } })?.access?.pat?.enabled !== false;

/**
 * The handler every asynchronous task-creating route shares: one service call with the parsed
 * body, then the documented answer `{ data: { taskId, estimatedCost?, access?: { publicAccessToken } } }`
 * (docs/api/images.md, docs/api/videos.md).
 */
export function createTaskHandler(deps: ApiDeps, type: string, options: { estimatedCost?: boolean } = {}) {
  return async (
    c: Context<ApiEnv>,
    { principal, body }: { principal: Principal; body: unknown },
  ): Promise<{ body: CreatedTaskResponse }> => {
    const created = await deps.tasks.create(principal, type, body, {
      pat: patEnabled(body),
      cancelAfterMs: cancelAfterOf(c),
    });
    noteCreated(c, created.task);
    const data: CreatedTaskResponse['data'] = { taskId: created.task.id };
    if (options.estimatedCost) data.estimatedCost = formatUsd(created.estimate);
    if (created.publicAccessToken) data.access = { publicAccessToken: created.publicAccessToken };
    return { body: { data } };
  };
}
