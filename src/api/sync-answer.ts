import { AppError } from '../domain/errors.js';
import { formatUsd } from '../domain/money.js';
import type { Principal } from '../services/auth.js';
import type { ApiDeps } from './types.js';

/**
 * Rate and alt answers (SPEC part 4): with `sync` (the default) wait up to sync.timeoutMs;
 * a completed task answers 200 with the results, a failed one 500 UNKNOWN_ERROR, and one
 * still pending (or `sync: false`) answers 202 with the task to poll.
 */
export async function createAndMaybeWait<Results>(deps: ApiDeps, principal: Principal, type: string, body: { sync: boolean }) {
  const { task } = await deps.tasks.create(principal, type, body, { pat: false });
  const pending = { status: 202 as const, body: { data: { task: { id: task.id, status: 'pending' as const } } } };
  if (!body.sync) return pending;
  const settled = await deps.tasks.waitForSettled(task.id, deps.config.current().sync.timeoutMs);
  if (settled.status === 'pending') return pending;
  if (settled.status === 'failed') throw new AppError('UNKNOWN_ERROR', `task ${task.id} failed: ${(settled.errors ?? []).map((e) => e.code).join(', ')}`);
  // The type's module built the results to its result schema.
  const { results } = settled.result as { results: Results };
  return { body: { data: { task: { id: settled.id, status: 'completed' as const, cost: formatUsd(settled.cost) }, results } } };
}
