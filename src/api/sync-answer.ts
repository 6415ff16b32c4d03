import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import { formatUsd } from '../domain/money.js';
import type { Principal } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { cancelAfterOf } from './cancel-after.js';
import { taskFailureMessage } from './failure-message.js';
import { noteCreated } from './task-create-handler.js';

/**
 * Rate and alt answers (docs/api/images.md#rate-and-alt-post-imagerate-post-imagealt): with `sync` (the default) wait
 * up to sync.timeoutMs;
 * a completed task answers 200 with the results, a failed one 500 UNKNOWN_ERROR, and one
 * still pending (or `sync: false`) answers 202 with the task to poll.
 */
export async function createAndMaybeWait<Results>(
  c: Context<ApiEnv>,
  deps: ApiDeps,
  principal: Principal,
  type: string,
  body: { sync: boolean },
) {
  const { task } = await deps.tasks.create(principal, type, body, { pat: false, cancelAfterMs: cancelAfterOf(c) });
  noteCreated(c, task);
  const pending = { status: 202 as const, body: { data: { task: { id: task.id, status: 'pending' as const } } } };
  if (!body.sync) return pending;
  const settled = await waitForCompleted(deps, task.id);
  if (!settled) return pending;
  // The type's module built the results to its result schema.
  const { results } = settled.result as { results: Results };
  return {
    body: { data: { task: { id: settled.id, status: 'completed' as const, cost: formatUsd(settled.cost) }, results } },
  };
}

/**
 * The same answer for a type whose result is one object (review): 200 with `result`, or 202;
 * with a PAT under `access` when the body's `access.pat.enabled` (default true) asks for one.
 */
export async function createAndMaybeWaitForResult<Result>(
  c: Context<ApiEnv>,
  deps: ApiDeps,
  principal: Principal,
  type: string,
  body: { sync: boolean; access?: { pat?: { enabled?: boolean } } },
) {
  const { task, publicAccessToken } = await deps.tasks.create(principal, type, body, {
    pat: body.access?.pat?.enabled !== false,
    cancelAfterMs: cancelAfterOf(c),
  });
  noteCreated(c, task);
  const access = publicAccessToken ? { access: { publicAccessToken } } : {};
  const pending = {
    status: 202 as const,
    body: { data: { task: { id: task.id, status: 'pending' as const }, ...access } },
  };
  if (!body.sync) return pending;
  const settled = await waitForCompleted(deps, task.id);
  if (!settled) return pending;
  return {
    body: {
      data: {
        task: { id: settled.id, status: 'completed' as const, cost: formatUsd(settled.cost) },
        result: settled.result as Result,
        ...access,
      },
    },
  };
}

/**
 * Waits up to sync.timeoutMs: the completed task, null while pending; a failed task is 500 UNKNOWN_ERROR naming it and
 * why its items failed.
 */
async function waitForCompleted(deps: ApiDeps, taskId: string) {
  const settled = await deps.tasks.waitForSettled(taskId, deps.config.current().sync.timeoutMs);
  if (settled.status === 'pending') return null;
  if (settled.status === 'failed') throw new AppError('UNKNOWN_ERROR', taskFailureMessage(settled));
  // Deleted while the answer waited: its results are gone, so the answer is the task to look up (it reads as deleted).
  if (settled.dataRemovedAt !== undefined) return null;
  return settled;
}
