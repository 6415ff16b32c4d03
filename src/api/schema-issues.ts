import type { z } from 'zod';

/** One schema-rejection issue, in the shape the API documents (docs/api/errors.md). */
export interface SchemaIssue {
  path: (string | number)[];
  code: string;
  expected: string;
  actual: string;
  message: string;
}

const typeOf = (value: unknown): string => {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
};

const valueAt = (root: unknown, path: PropertyKey[]): unknown => {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
};

const shortJson = (value: unknown): string => {
  const text = JSON.stringify(value) ?? typeOf(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

const measure = (value: unknown): string => {
  if (typeof value === 'string') return `string of length ${value.length}`;
  if (Array.isArray(value)) return `array of ${value.length} items`;
  if (typeof value === 'number') return String(value);
  return typeOf(value);
};

const bound = (issue: { origin?: string; inclusive?: boolean }, op: '>' | '<', limit: unknown): string => {
  const cmp = `${op}${issue.inclusive === false ? '' : '='} ${String(limit)}`;
  switch (issue.origin) {
    case 'string':
      return `string of length ${cmp}`;
    case 'array':
    case 'set':
      return `array of ${cmp} items`;
    default:
      return `${issue.origin ?? 'value'} ${cmp}`;
  }
};

type Issue = z.core.$ZodIssue;

/**
 * A union that failed because one branch matched the value's shape but not its details (a
 * rating object with eight levels) is reported as that branch's own issues, at their real
 * paths: "levels: at most 7" helps where "rating: invalid input" does not.
 */
function unwrapUnions(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !('errors' in issue) || !Array.isArray(issue.errors)) return [issue];
    const deep = issue.errors.filter((branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0));
    if (deep.length !== 1) return [issue];
    return unwrapUnions(deep[0].map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue));
  });
}

/**
 * Maps zod issues to the API's schema-rejection issues (docs/api/errors.md): every issue carries path, code, expected,
 * actual and message.
 */
export function toSchemaIssues(error: z.ZodError, input: unknown): SchemaIssue[] {
  return unwrapUnions(error.issues).map((issue) => {
    const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
    const value = valueAt(input, issue.path);
    let expected: string;
    let actual = typeOf(value);
    switch (issue.code) {
      case 'invalid_type':
        expected = issue.expected;
        break;
      case 'too_small':
        expected = bound(issue, '>', issue.minimum);
        actual = measure(value);
        break;
      case 'too_big':
        expected = bound(issue, '<', issue.maximum);
        actual = measure(value);
        break;
      case 'invalid_value':
        expected = issue.values.map((v) => JSON.stringify(v)).join(' | ');
        actual = shortJson(value);
        break;
      case 'invalid_format':
        expected = issue.format;
        actual = shortJson(value);
        break;
      case 'unrecognized_keys':
        expected = 'no other keys';
        actual = issue.keys.join(', ');
        break;
      case 'invalid_union':
        expected = 'one of the accepted shapes';
        actual = shortJson(value);
        break;
      default:
        expected = 'a valid value';
        actual = shortJson(value);
    }
    return { path, code: issue.code, expected, actual, message: issue.message };
  });
}
