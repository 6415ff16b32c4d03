import type { z } from 'zod';
import { IDEMPOTENCY_KEY_DESCRIPTION, takesIdempotencyKey } from '../idempotency.js';
import type { RouteSpec } from '../route.js';
import type { Convert, Json } from './converter.js';
import { errorResponses } from './error-responses.js';
import { tagOf } from './tags.js';

const SECURITY: Record<string, string> = { apiKey: 'apiKey', accessToken: 'accessToken', pat: 'publicAccessToken' };

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/**
 * Parameters from the schema a handler parses its query (or headers) with; a catch-all becomes one form-exploded
 * object.
 */
function parametersOf(schema: z.ZodObject, where: 'query' | 'header', convert: Convert): Json[] {
  const params: Json[] = Object.entries(schema.shape).map(([name, field]) => {
    const json = convert(field as z.ZodType, 'input');
    const { description, ...rest } = json;
    return {
      name,
      in: where,
      required: !(field as z.ZodType).safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
  const rest = schema._zod.def.catchall;
  if (rest && where === 'query') {
    const { description, ...value } = convert(rest as z.ZodType, 'input');
    params.push({
      name: 'metadata',
      in: 'query',
      style: 'form',
      explode: true,
      description:
        `${description ?? ''} (each pair is its own query parameter, e.g. \`metadata.project=alpha\`)`.trim(),
      schema: { type: 'object', propertyNames: { pattern: '^metadata\\.' }, additionalProperties: value },
    });
  }
  return params;
}

/** The operation of one route: its parameters, body, answers, errors and credentials. */
function operationOf(route: RouteSpec, convert: Convert): Json {
  const parameters: Json[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) parameters.push(...parametersOf(route.query, 'query', convert));
  if (route.headers) parameters.push(...parametersOf(route.headers, 'header', convert));
  if (takesIdempotencyKey(route.method, route.path)) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: IDEMPOTENCY_KEY_DESCRIPTION,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    });
  }
  const body = typeof route.body === 'function' ? route.body() : route.body;
  const success: Json = {
    [String(route.status)]: {
      description: 'Success',
      content: {
        [route.produces ?? 'application/json']: { schema: route.response ? convert(route.response, 'output') : {} },
      },
    },
  };
  if (takesIdempotencyKey(route.method, route.path)) {
    (success[String(route.status)] as Json).headers = {
      'Idempotent-Replayed': {
        description: 'true on an answer replayed for an Idempotency-Key',
        schema: { type: 'string', const: 'true' },
      },
    };
  }
  for (const other of route.also ?? []) {
    const headers =
      other.headers &&
      Object.fromEntries(
        Object.entries(other.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
      );
    success[String(other.status)] = {
      description: other.description,
      ...(headers ? { headers } : {}),
      ...(other.schema ? { content: { 'application/json': { schema: convert(other.schema, 'output') } } } : {}),
    };
  }
  const operation: Json = {
    operationId: `${route.method}${route.path.replace(/[:/-](\w)/g, (_, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [tagOf(route.path)],
    responses: { ...success, ...errorResponses(route, convert) },
  };
  if (route.guard) {
    operation.security = route.guard.accept.map((kind) => ({
      [SECURITY[kind]]: route.guard!.scope && kind !== 'pat' ? [route.guard!.scope] : [],
    }));
    operation['x-scope'] = route.guard.scope ?? null;
  } else operation.security = [];
  if (parameters.length) operation.parameters = parameters;
  if (body)
    operation.requestBody = { required: true, content: { 'application/json': { schema: convert(body, 'input') } } };
  if (route.path === '/image/upload')
    operation.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              files: { type: 'array', items: { type: 'string', format: 'binary' }, minItems: 1, maxItems: 10 },
            },
            required: ['files'],
          },
        },
      },
    };
  return operation;
}

/** The `paths` of the description: every documented route, by path and method. */
export function buildPaths(routes: RouteSpec[], convert: Convert): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter((r) => !r.internal)) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationOf(route, convert) };
  }
  return paths;
}
