import type { Context } from 'hono';
import { toSchemaIssues } from '../../api/schema-issues.js';
import { AppError } from '../../domain/errors.js';
import type { TaskRecord } from '../../engine/task-registry.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import type { AccountSession } from '../console-http.js';
import { principalOf } from '../console-http.js';
import { authorizeSession, keyPrincipal } from '../key-principal.js';

/**
 * Cancels a pending task as POST /tasks/{id}/cancel does (the same service call), for the
 * account holder with the scope tasks:cancel; a settled task is TASK_NOT_PENDING.
 */
export async function cancelTask(deps: ConsoleDeps, session: AccountSession, id: string): Promise<TaskRecord> {
  const principal = principalOf(session);
  deps.auth.authorize(principal, { accept: ['accessToken'], scope: 'tasks:cancel' });
  return deps.tasks.cancel(principal, id);
}

/**
 * Deletes a task's data as DELETE /tasks/{id} does (the same service call; a pending task is
 * cancelled first), for the account holder with the scope tasks:cancel. Answers the task as kept.
 */
export async function deleteTask(deps: ConsoleDeps, session: AccountSession, id: string): Promise<TaskRecord> {
  deps.auth.authorize(principalOf(session), { accept: ['accessToken'], scope: 'tasks:cancel' });
  return deps.dataRemoval.removeTask(session.accountId, id);
}

/**
 * Parses a stored request with its type's create schema. Every built-in type keeps a body its
 * schema takes again (image.rate, image.alt and image.review leave out `sync`, which defaults);
 * a request that no longer passes (a model since removed from the config) is refused, with why.
 */
function bodyOf(deps: ConsoleDeps, task: TaskRecord): unknown {
  const def = deps.tasks.typeNamed(task.type);
  const parsed = def.body().safeParse(task.request);
  if (parsed.success) return parsed.data;
  const issues = toSchemaIssues(parsed.error, task.request).map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  throw new AppError(
    'VALIDATION_ERROR',
    `its request no longer passes the checks of ${task.type}: ${issues.join('; ')}`,
  );
}

/**
 * "Run again": a new task of the same type with the same request, created as the API creates
 * it, by one of the account's keys: the original task's while it lives, else the one chosen.
 * Answers the new task.
 */
export async function runAgain(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  session: AccountSession,
  id: string,
  chosenKeyId: string | undefined,
): Promise<TaskRecord> {
  // It reads the task's request: the session needs what GET /tasks/{id} needs, and then the type's own scope
  // (keyPrincipal).
  authorizeSession(deps, session, 'tasks:read');
  const task = await deps.tasks.getOwned(principalOf(session), id);
  const def = deps.tasks.typeNamed(task.type);
  const live =
    task.apiKeyId !== null && (await deps.apiKeys.list(session.accountId)).some((key) => key.id === task.apiKeyId);
  const keyId = live ? task.apiKeyId : chosenKeyId;
  if (!keyId) throw new AppError('VALIDATION_ERROR', 'choose the key to run it with');
  const principal = await keyPrincipal(c, deps, session, keyId, def.scope);
  const created = await deps.tasks.create(principal, task.type, bodyOf(deps, task), { pat: false });
  return created.task;
}
