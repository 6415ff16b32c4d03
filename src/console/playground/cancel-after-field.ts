import { parseCancelAfter } from '../../domain/scheduling.js';
import type { FormIssue } from './build-body.js';
import type { FieldSpec } from './field-specs.js';

/**
 * The form's deadline: not a body field but the create's Cancel-After header
 * (docs/api/tasks.md#deadlines-cancel-after), so the page draws it beside the type's fields and
 * the body builder never sees it. Its `path` names the header, where its issues are filed.
 */
export const CANCEL_AFTER_FIELD = {
  kind: 'text',
  name: 'cancel_after',
  label: 'Cancel after',
  path: ['Cancel-After'],
  hint: 'Optional: a deadline such as 30s, 5m or 1h30m (1s to 24h). What has not finished by then fails with TASK_EXPIRED and is not charged.',
} as const satisfies FieldSpec;

const ISSUE_PATH = CANCEL_AFTER_FIELD.path.join('.');

/**
 * The deadline typed in the form, checked as the API checks the header: milliseconds, none when empty, or the issue
 * naming it.
 */
export function cancelAfterOfForm(fields: Record<string, string>): { ms?: number } | { issue: FormIssue } {
  const text = (fields[CANCEL_AFTER_FIELD.name] ?? '').trim();
  if (text === '') return {};
  const parsed = parseCancelAfter(text);
  return 'problem' in parsed ? { issue: { path: ISSUE_PATH, message: parsed.problem } } : parsed;
}
