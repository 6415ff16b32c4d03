import type { Context } from 'hono';
import { toSchemaIssues } from '../../api/schema-issues.js';
import type { Micros } from '../../domain/money.js';
import type { AnyTaskType } from '../../engine/task-registry.js';
import type { Principal } from '../../services/auth.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import type { AccountSession } from '../console-http.js';
import { authorizeSession, keyPrincipal } from '../key-principal.js';
import { buildBody, type FormIssue } from './build-body.js';
import { cancelAfterOfForm } from './cancel-after-field.js';
import { KEY_FIELD } from './field-specs.js';
import { formFor } from './type-forms.js';

/** A form read as the type's request: the parsed body, or the issues that keep it from being one. */
export type ParsedForm = { ok: true; body: unknown } | { ok: false; issues: FormIssue[] };

/**
 * The form's fields as the body its type's create route would take, checked by the type's own schema (as the route
 * checks it).
 */
export function parseForm(def: AnyTaskType, fields: Record<string, string>): ParsedForm {
  const { body, issues } = buildBody(formFor(def.type), fields);
  if (issues.length > 0) return { ok: false, issues };
  const parsed = def.body().safeParse(body);
  if (parsed.success) return { ok: true, body: parsed.data };
  return {
    ok: false,
    issues: toSchemaIssues(parsed.error, body).map((issue) => ({
      path: issue.path.join('.') || '(body)',
      message: issue.message,
    })),
  };
}

/**
 * Creates the task as the chosen key, exactly as its create route would (`pat: false`: the
 * console follows the task in its own inspector), with the form's deadline as its Cancel-After
 * header would give it. The key's scopes, rate and limits (its maxPriority too) apply; refusals
 * are thrown as the API's AppErrors.
 */
export async function createFromForm(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  session: AccountSession,
  def: AnyTaskType,
  fields: Record<string, string>,
): Promise<{ taskId: string } | { issues: FormIssue[] }> {
  const principal = await keyPrincipal(c, deps, session, fields[KEY_FIELD] ?? '', def.scope);
  const parsed = parseForm(def, fields);
  const deadline = cancelAfterOfForm(fields);
  const issues = [...(parsed.ok ? [] : parsed.issues), ...('issue' in deadline ? [deadline.issue] : [])];
  if (!parsed.ok || 'issue' in deadline) return { issues };
  const { task } = await deps.tasks.create(principal, def.type, parsed.body, {
    pat: false,
    cancelAfterMs: deadline.ms,
  });
  return { taskId: task.id };
}

/**
 * The key as an estimate sees it: its scopes are checked, but its request rate is not spent:
 * the page asks for an estimate as the form changes, and that must not use up the minute's
 * requests the task itself will need. A key of another account, expired or deleted, is
 * API_KEY_NOT_FOUND.
 */
async function estimatingKey(
  deps: ConsoleDeps,
  session: AccountSession,
  keyId: string,
  def: AnyTaskType,
): Promise<Principal> {
  authorizeSession(deps, session, def.scope);
  const key = await deps.apiKeys.get(session.accountId, keyId);
  const principal: Principal = { kind: 'apiKey', accountId: session.accountId, keyId: key.id, scopes: key.scopes };
  deps.auth.authorize(principal, { accept: ['apiKey'], scope: def.scope });
  return principal;
}

/** What creating the task would reserve (the type's own checks included), without creating it. */
export async function estimateFromForm(
  deps: ConsoleDeps,
  session: AccountSession,
  def: AnyTaskType,
  fields: Record<string, string>,
): Promise<{ total: Micros } | { issues: FormIssue[] }> {
  const principal = await estimatingKey(deps, session, fields[KEY_FIELD] ?? '', def);
  const parsed = parseForm(def, fields);
  if (!parsed.ok) return { issues: parsed.issues };
  const estimate = await deps.tasks.estimate(principal, def.type, parsed.body);
  return { total: estimate.total };
}
