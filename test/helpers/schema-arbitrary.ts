import fc from 'fast-check';

/** The JSON Schema keywords zod's `toJSONSchema` gives for this API's request schemas. */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

// Generated values stay small: the point is their shape, not their size (hostile inputs cover size).
const SMALL = { items: 4, string: 40 };

/** Values a schema accepts (as far as its keywords say: refinements in code may still refuse some). */
export function valid(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map(valid));
  if (schema.allOf) return valid(Object.assign({}, ...schema.allOf));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => valid({ ...schema, type })));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e6), max: Math.min(schema.maximum ?? 1000, 1e6) });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1000,
        max: schema.maximum ?? 1000,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return text(schema);
    case 'array':
      return fc.array(schema.items ? valid(schema.items) : fc.jsonValue({ maxDepth: 1 }), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? SMALL.items, SMALL.items)),
      });
    case 'object':
      return object(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function text(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.pattern)
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 200));
  const minLength = schema.minLength ?? 0;
  return fc.string({
    minLength,
    maxLength: Math.max(minLength, Math.min(schema.maxLength ?? SMALL.string, SMALL.string)),
  });
}

function object(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const known = fc.record(Object.fromEntries(Object.entries(properties).map(([key, inner]) => [key, valid(inner)])), {
    requiredKeys: (schema.required ?? []).filter((key) => key in properties),
  });
  if (typeof schema.additionalProperties !== 'object' || Object.keys(properties).length > 0) return known;
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valid(schema.additionalProperties), {
    maxKeys: SMALL.items,
  });
}

/** Every path to a value inside `root` (objects and arrays walked), the root included. */
function paths(root: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(root)) for (const [i, item] of root.entries()) out.push(...paths(item, [...prefix, i]));
  else if (root !== null && typeof root === 'object')
    for (const [key, item] of Object.entries(root)) out.push(...paths(item, [...prefix, key]));
  return out;
}

const MUTATIONS = [
  'drop',
  'null',
  'wrong type',
  'huge string',
  'huge number',
  'negative',
  'empty',
  'extra key',
  'prototype key',
] as const;

/** Replaces (or removes) the value at `path` of a deep copy of `root` by the named mutation. */
function mutate(root: unknown, path: (string | number)[], mutation: (typeof MUTATIONS)[number]): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  const replace = (value: unknown): unknown => {
    switch (mutation) {
      case 'null':
        return null;
      case 'wrong type':
        return typeof value === 'string'
          ? 42
          : typeof value === 'number'
            ? 'forty-two'
            : Array.isArray(value)
              ? { not: 'an array' }
              : [value];
      case 'huge string':
        return 'x'.repeat(10_000);
      case 'huge number':
        return 1e300;
      case 'negative':
        return typeof value === 'number' ? -value - 1 : -1;
      case 'empty':
        return Array.isArray(value) ? [] : typeof value === 'string' ? '' : {};
      case 'extra key':
        return value !== null && typeof value === 'object' && !Array.isArray(value)
          ? { ...value, unexpected: true }
          : value;
      case 'prototype key':
        return JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
      default:
        return value;
    }
  };
  if (path.length === 0) return mutation === 'drop' ? undefined : replace(copy);
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (mutation === 'drop') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = replace(parent[last]);
  return copy;
}

/** Valid values with one thing wrong: a key dropped, a value of the wrong type or size, an extra or hostile key. */
export function nearValid(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.tuple(valid(schema), fc.nat(), fc.constantFrom(...MUTATIONS)).map(([value, pick, mutation]) => {
    const all = paths(value);
    return mutate(value, all[pick % all.length], mutation);
  });
}

/** Bodies no client should send, as raw text: any JSON, deep or wide, huge, broken, hostile keys, not JSON at all. */
export function hostileText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value) ?? 'null'),
    fc.integer({ min: 60, max: 5000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    fc.integer({ min: 60, max: 5000 }).map((depth) => `{"metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
    fc
      .integer({ min: 1000, max: 200_000 })
      .map((n) => `{"urls":[${'"http://x",'.repeat(n)}"y"],"prompt":"${'p'.repeat(n % 9000)}"}`),
    fc.constantFrom(
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"prompt":1e309}',
      '{"a":1,"a":2}',
      '{"prompt":"\\ud800"}',
      '{',
      '[',
      '"',
      'null',
      'true',
      '0',
      '[]',
      '',
    ),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );
}
