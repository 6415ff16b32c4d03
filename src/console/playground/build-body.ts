import { MalformedJsonError, parseRequestJson } from '../../api/json-depth.js';
import { AppError } from '../../domain/errors.js';
import { ADVANCED_FIELD, type FieldSpec, type TypeForm } from './field-specs.js';
import { parametersFromForm } from './parameter-fields.js';

/** A reason a form cannot become a request: where (a body path, dotted) and why. */
export interface FormIssue {
  path: string;
  message: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Sets an own property, whatever its name: assignment would take "__proto__" for the prototype and drop it silently.
 */
function define(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function setAt(body: Json, path: string[], value: unknown): void {
  let node = body;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) define(node, key, {});
    node = node[key] as Json;
  }
  define(node, path[path.length - 1], value);
}

/** `over` laid on `base`: objects merge key by key, anything else (arrays included) replaces. */
export function mergeOver(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over;
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(over))
    define(merged, key, mergeOver(Object.hasOwn(merged, key) ? merged[key] : undefined, value));
  return merged;
}

/** JSON text typed in a field; refused (as an issue) when malformed or nested too deep for the checks after it. */
function parseJsonField(text: string, where: string): { value: unknown } | { issue: FormIssue } {
  try {
    return { value: parseRequestJson(text) };
  } catch (err) {
    if (err instanceof MalformedJsonError) return { issue: { path: where, message: 'not valid JSON' } };
    if (err instanceof AppError) return { issue: { path: where, message: err.message } };
    throw err;
  }
}

/** Integers as numbers; anything else stays text, so the schema names the field and what it expected. */
const numberOrText = (text: string): number | string => (/^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text);

const linesOf = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);

/** "value: description" (the first colon splits), one level a line. */
const levelsOf = (text: string) =>
  linesOf(text).map((line) => {
    const colon = line.indexOf(':');
    return colon === -1
      ? { value: line, description: '' }
      : { value: line.slice(0, colon).trim(), description: line.slice(colon + 1).trim() };
  });

/** The body value of one field, or undefined to leave it out (the schema's default applies). */
function fieldValue(
  field: FieldSpec,
  fields: Record<string, string>,
): { value: unknown } | { issue: FormIssue } | undefined {
  const text = fields[field.name] ?? '';
  switch (field.kind) {
    case 'text':
      if (text === '' && !field.required) return undefined;
      return { value: field.asList ? [text.trim()] : text };
    case 'number':
      return text.trim() === '' ? undefined : { value: numberOrText(text) };
    case 'select':
      return text === '' ? undefined : { value: text };
    case 'checkbox':
      return text === '' ? undefined : { value: field.value };
    case 'lines': {
      const lines = linesOf(text);
      return lines.length === 0 && !field.required ? undefined : { value: lines };
    }
    case 'levels':
      return field.when(fields) ? { value: levelsOf(text) } : undefined;
    case 'json':
      return text.trim() === '' ? undefined : parseJsonField(text, field.path.join('.'));
    case 'parameters': {
      const parameters = parametersFromForm(fields);
      return parameters && { value: parameters };
    }
  }
}

/**
 * The JSON body a posted form stands for: each field at its path, then the advanced JSON body
 * merged over them; `sync: false` for a type that could wait (the console never waits, the task
 * inspector shows the task live). Issues are what kept a field from becoming JSON at all; the
 * type's schema checks the rest.
 */
export function buildBody(form: TypeForm, fields: Record<string, string>): { body: Json; issues: FormIssue[] } {
  let body: Json = {};
  const issues: FormIssue[] = [];
  for (const field of form.fields) {
    const outcome = fieldValue(field, fields);
    if (!outcome) continue;
    if ('issue' in outcome) issues.push(outcome.issue);
    else setAt(body, field.path, outcome.value);
  }
  const advanced = fields[ADVANCED_FIELD] ?? '';
  if (advanced.trim() !== '') {
    const parsed = parseJsonField(advanced, 'advanced JSON body');
    if ('issue' in parsed) issues.push(parsed.issue);
    else if (!isObject(parsed.value))
      issues.push({
        path: 'advanced JSON body',
        message: 'must be a JSON object, such as {"webhook": {"dashboard": true}}',
      });
    else body = mergeOver(body, parsed.value) as Json;
  }
  if (form.noWait) define(body, 'sync', false);
  return { body, issues };
}
