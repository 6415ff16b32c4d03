import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';
import { EVENT_KINDS } from '../tasks/index.js';
import { ErrorBody, EventEnvelope, ImageSchemaRejection, ResourceSchemaRejection } from './openapi-schemas.js';
import type { RouteSpec } from './route.js';

const SECURITY: Record<string, string> = { apiKey: 'apiKey', accessToken: 'accessToken', pat: 'publicAccessToken' };

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), requests as their input shape. */
const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
};

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function errorResponses(route: RouteSpec): Record<string, unknown> {
  const pairs: [number, ErrorCode][] = (route.errors ?? []).map((code) => [ERROR_STATUS[code], code]);
  if (route.guard) {
    pairs.push([401, 'UNAUTHORIZED']);
    if (route.guard.accept.includes('pat')) pairs.push([401, 'INVALID_TOKEN'], [401, 'TOKEN_EXPIRED']);
    pairs.push([403, 'INSUFFICIENT_SCOPE']);
    if (route.guard.scope === 'keys' || route.guard.scope === 'manage') pairs.push([403, 'SCOPE_ESCALATION']);
  }
  // Bodies are bounded: past the bound (100 MB for uploads) the answer is 413 VALIDATION_ERROR.
  if (route.body || route.path === '/image/upload') pairs.push([413, 'VALIDATION_ERROR']);
  pairs.push([500, 'INTERNAL_SERVER_ERROR']);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [status, code] of pairs) if (!byStatus.get(status)?.includes(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const schema = jsonSchema(ErrorBody, 'output') as { properties: { code: Record<string, unknown> } };
    schema.properties.code = { type: 'string', enum: list };
    const content: Record<string, unknown> = { 'application/json': { schema } };
    responses[String(status)] = { description: `Request error: ${list.join(', ')}`, content };
  }
  if (route.body) {
    const rejection = route.family === 'image' ? ImageSchemaRejection : ResourceSchemaRejection;
    const existing = responses['400'] as { content: Record<string, { schema: unknown }>; description: string } | undefined;
    const oneOf = [jsonSchema(rejection, 'output'), ...(existing ? [existing.content['application/json'].schema] : [])];
    responses['400'] = {
      description: `Schema rejection (${route.family === 'image' ? '{ data, error, success: false }' : '{ success: false, errors }'}), a body that is not JSON (plain text "Malformed JSON in request body")${existing ? `, or ${existing.description.toLowerCase()}` : ''}`,
      content: { 'application/json': { schema: oneOf.length > 1 ? { oneOf } : oneOf[0] }, 'text/plain': { schema: { type: 'string', const: 'Malformed JSON in request body' } } },
    };
  }
  return responses;
}

/**
 * The OpenAPI 3.1 description of the API, generated from the mounted routes and the very zod
 * schemas that validate requests: one source of truth.
 */
export function buildOpenApi(routes: RouteSpec[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter((r) => !r.internal)) {
    const path = openApiPath(route.path);
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const body = typeof route.body === 'function' ? route.body() : route.body;
    const operation: Record<string, unknown> = {
      operationId: `${route.method}${route.path.replace(/[:/-](\w)/g, (_, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')}`,
      summary: route.summary,
      tags: [route.path.split('/')[1]],
      responses: {
        [String(route.status)]: { description: 'Success', content: { [route.produces ?? 'application/json']: { schema: route.response ? jsonSchema(route.response, 'output') : {} } } },
        ...errorResponses(route),
      },
    };
    if (route.guard) {
      operation.security = route.guard.accept.map((kind) => ({ [SECURITY[kind]]: route.guard!.scope && kind !== 'pat' ? [route.guard!.scope] : [] }));
      operation['x-scope'] = route.guard.scope ?? null;
    } else operation.security = [];
    if (params.length) operation.parameters = params;
    if (body) operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(body, 'input') } } };
    if (route.path === '/image/upload')
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': { schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string', format: 'binary' }, minItems: 1, maxItems: 10 } }, required: ['files'] } },
        },
      };
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  const webhooks: Record<string, unknown> = {};
  for (const kind of EVENT_KINDS.filter((k) => k !== 'all')) {
    webhooks[kind] = {
      post: {
        summary: `Sent when ${kind
          .replace(/^task\./, '')
          .replace(/\.(completed|failed)$/, ' tasks $1')
          .replace(/^(completed|failed)$/, 'any task $1s')} (dashboard webhooks are signed the Standard Webhooks way)`,
        parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ name, in: 'header', required: name === 'webhook-id', schema: { type: 'string' } })),
        requestBody: { content: { 'application/json': { schema: jsonSchema(EventEnvelope, 'output') } } },
        responses: { '200': { description: 'Any 2xx marks the delivery delivered; anything else is retried on the schedule' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'imgtask',
      version: '1.0.0',
      description: 'Self-hosted asynchronous image task service: image generation, rating, alt text, background removal, uploads, tasks, webhooks, API keys and destinations.',
    },
    servers: [{ url: serverUrl }],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (mak_…)' },
        accessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An OAuth access token (imgtask tokens issue)' },
        publicAccessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'pat_ + JWT', description: 'A Public Access Token for one task, valid one hour' },
      },
    },
  };
}
