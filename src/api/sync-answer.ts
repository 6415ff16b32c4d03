import type { Context } from 'hono';
import { AppError } from '../domain/errors.js';
import { formatUsd } from '../domain/money.js';
import type { Principal } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './types.js';

/**
 * Rate and alt answers (SPEC part 4): with `sync` (the default) wait up to sync.timeoutMs;
 * a completed task answers 200 with the results, a failed one 500 UNKNOWN_ERROR, and one
 * still pending (or `sync: false`) answers 202 with the task to poll.
 */
export async function createAndMaybeWait(c: Context<ApiEnv>, deps: ApiDeps, principal: Principal, type: string, body: { sync: boolean }): Promise<Response> {
  const { sync } = body;
  const { task } = await deps.tasks.create(principal, type, body, { pat: false });
  if (!sync) return c.json({ data: { task: { id: task.id, status: 'pending' } } }, 202);
  const settled = await deps.tasks.waitForSettled(task.id, deps.config.current().sync.timeoutMs);
  if (settled.status === 'pending') return c.json({ data: { task: { id: task.id, status: 'pending' } } }, 202);
  if (settled.status === 'failed') throw new AppError('UNKNOWN_ERROR', `task ${task.id} failed: ${(settled.errors ?? []).map((e) => e.code).join(', ')}`);
  const results = (settled.result as { results: unknown[] }).results;
  return c.json({ data: { task: { id: settled.id, status: settled.status, cost: formatUsd(settled.cost) }, results } }, 200);
}
