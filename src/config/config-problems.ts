import type { z } from 'zod';
import { closestMatch } from '../domain/did-you-mean.js';

type Def = {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  discriminator?: string;
};
const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/**
 * The schema under wrappers that do not change what keys an object takes (optional, default, nullable, a pipe's
 * input…).
 */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let def = defOf(schema);
  while (def.innerType || (def.type === 'pipe' && def.in)) {
    schema = (def.innerType ?? def.in)!;
    def = defOf(schema);
  }
  return schema;
}

/**
 * The keys the object schema at `path` takes, following the raw value through records and
 * discriminated unions (the option its discriminator picks); undefined where no object is.
 */
function keysAt(schema: z.core.$ZodType, raw: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let node = unwrap(schema);
  let value = raw;
  let i = 0;
  for (;;) {
    const def = defOf(node);
    if (def.type === 'union' && def.discriminator) {
      const tag = (value as Record<string, unknown> | undefined)?.[def.discriminator];
      const option = def.options?.find((o) => matchesTag(unwrap(o), def.discriminator!, tag));
      if (!option) return undefined;
      node = unwrap(option);
      continue;
    }
    if (i === path.length) return def.type === 'object' ? Object.keys(def.shape ?? {}) : undefined;
    const key = path[i];
    if (def.type === 'object' && def.shape?.[key as string]) node = unwrap(def.shape[key as string]);
    else if (def.type === 'record' && def.valueType) node = unwrap(def.valueType);
    else return undefined;
    value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
    i++;
  }
}

/** Whether the object schema's discriminator field takes `tag` (a literal, or one of an enum's values). */
function matchesTag(option: z.core.$ZodType, discriminator: string, tag: unknown): boolean {
  const shape = defOf(option).shape;
  if (!shape?.[discriminator]) return false;
  const def = unwrap(shape[discriminator])._zod.def as unknown as {
    values?: unknown[];
    entries?: Record<string, unknown>;
  };
  const values = def.values ?? Object.values(def.entries ?? {});
  return values.includes(tag);
}

const where = (path: readonly PropertyKey[]): string => path.map(String).join('.');

/**
 * One line per problem of a config that failed its schema, each naming its key; an unknown key
 * names the known one it is likely a typo of ("did you mean `webhooks`?").
 */
export function configProblems(schema: z.core.$ZodType, raw: unknown, issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') {
      lines.push(`${where(issue.path) || '(top level)'}: ${issue.message}`);
      continue;
    }
    const known = keysAt(schema, raw, issue.path) ?? [];
    for (const key of issue.keys) {
      const guess = closestMatch(key, known);
      lines.push(`${where([...issue.path, key])}: unknown key${guess ? `; did you mean \`${guess}\`?` : ''}`);
    }
  }
  return lines;
}
