import { z } from 'zod';
import { componentNames } from './schemas.js';

/** A JSON value of the description. */
export type Json = Record<string, unknown>;

/** Converts a zod schema for a request (`input`) or an answer (`output`). */
export type Convert = (schema: z.ZodType, io: 'input' | 'output') => Json;

/**
 * Component schema names as references (what zod extracts as `$defs` lives under
 * `components.schemas`), and `anyOf` lists with an empty member (`unknown().nullable()`)
 * dropped: they match any value anyway.
 */
const toComponentRefs = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'), (_key, json: unknown) => {
    const anyOf = (json as Json | null)?.anyOf;
    if (
      Array.isArray(anyOf) &&
      anyOf.some((member) => typeof member === 'object' && member !== null && Object.keys(member).length === 0)
    ) {
      const { anyOf: _, ...rest } = json as Json;
      return rest;
    }
    return json;
  });
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** zod's metadata lookups: the descriptions (global registry) plus the component names. */
class NamedRegistry extends z.core.$ZodRegistry<Record<string, unknown>> {
  override get(schema: z.core.$ZodType): Record<string, unknown> | undefined {
    const merged = { ...z.globalRegistry.get(schema), ...componentNames.get(schema) };
    return Object.keys(merged).length ? merged : undefined;
  }
}

/**
 * Converts zod schemas to JSON Schema 2020-12 (OpenAPI 3.1's dialect), collecting the named
 * ones into `components`. Answers (`output`) reference named schemas; requests (`input`, where
 * defaults make fields optional) are shown inline.
 */
export function createConverter() {
  const components: Record<string, Json> = {};
  const metadata = new NamedRegistry();
  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const out = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      ...(io === 'output' ? { metadata } : {}),
    }) as Json;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    for (const [id, def] of Object.entries(defs)) {
      const json = toComponentRefs(def);
      if (components[id] && JSON.stringify(components[id]) !== JSON.stringify(json))
        throw new Error(`schema ${id} converts differently in two answers`);
      components[id] = json;
    }
    return toComponentRefs(out);
  };
  return { convert, components };
}

/** Marks each `oneOf` of component references whose targets share a constant property as discriminated by it. */
export function addDiscriminators(components: Record<string, Json>): void {
  const constOf = (target: Json | undefined, property: string) =>
    (target?.properties as Record<string, Json> | undefined)?.[property]?.const;
  for (const schema of Object.values(components)) {
    const members = schema.oneOf as { $ref?: string }[] | undefined;
    if (!members?.every((m) => m.$ref)) continue;
    const targets = members.map((m) => components[m.$ref!.split('/').pop()!]);
    const property = ['type', 'status'].find((p) => targets.every((t) => typeof constOf(t, p) === 'string'));
    if (property)
      schema.discriminator = {
        propertyName: property,
        mapping: Object.fromEntries(members.map((m, i) => [constOf(targets[i], property), m.$ref])),
      };
  }
}
