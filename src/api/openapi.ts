import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.js';
import { BILLING_THRESHOLD_EVENT, TEST_EVENT_KIND } from '../domain/event-kinds.js';
import { IDEMPOTENCY_KEY_DESCRIPTION, takesIdempotencyKey } from './idempotency.js';
import {
  BillingThresholdEvent,
  componentNames,
  ErrorBody,
  EVENT_PAYLOADS,
  ImageSchemaRejection,
  ResourceSchemaRejection,
  TestEvent,
} from './openapi-schemas.js';
import type { RouteSpec } from './route.js';

const SECURITY: Record<string, string> = { apiKey: 'apiKey', accessToken: 'accessToken', pat: 'publicAccessToken' };

type Json = Record<string, unknown>;

/**
 * The tags of the description, one per resource, in the order a reader meets them: each route
 * is tagged by the first segment of its path (`/image/…` and `/images/{file}` are both images).
 */
const TAGS: { name: string; description: string; segments: string[] }[] = [
  {
    name: 'images',
    description:
      'Image tasks (generate, rate, alt text, remove background, review) with an API key; uploads, which give any task an image to work on; and the image files the service serves',
    segments: ['image', 'images'],
  },
  {
    name: 'videos',
    description: 'Video generation tasks, the video models and their prices, and the video files the service serves',
    segments: ['video', 'videos'],
  },
  {
    name: 'tasks',
    description:
      'Every task, whatever its type: its status, result and live events; cancel it; estimate the cost of one before creating it',
    segments: ['tasks'],
  },
  { name: 'models', description: 'The configured image generation models and their prices', segments: ['models'] },
  {
    name: 'api-keys',
    description: "The account's API keys: create, limit, rotate and revoke them (with an OAuth access token)",
    segments: ['api-key'],
  },
  {
    name: 'webhooks',
    description: "The account's webhooks, their deliveries, tests and redeliveries (with an OAuth access token)",
    segments: ['webhook'],
  },
  {
    name: 'usage',
    description:
      "The account's charges over a range of days, by day, key, task type or model (with an OAuth access token)",
    segments: ['usage'],
  },
  {
    name: 'destinations',
    description:
      'Storage destinations (S3-compatible buckets, HTTP endpoints, local folders) that results are also written to (with an OAuth access token)',
    segments: ['destinations'],
  },
  {
    name: 'service',
    description:
      'The service itself: where to go (GET /), liveness, readiness, Prometheus metrics, and this description as JSON and as a page',
    segments: ['', 'health', 'ready', 'metrics', 'openapi.json', 'docs'],
  },
];

/** The tag of the events the service sends (the document's `webhooks`), apart from the routes that manage webhooks. */
const EVENTS_TAG = {
  name: 'webhook-events',
  description: 'Events the service sends to webhooks, signed as Standard Webhooks',
};

/** The resource tag of a route; a route whose first path segment no tag lists is a mistake to fix here. */
function tagOf(path: string): string {
  const segment = path.split('/')[1];
  const tag = TAGS.find((t) => t.segments.includes(segment));
  if (!tag) throw new Error(`openapi: no tag for routes under /${segment}: add it to TAGS`);
  return tag.name;
}

/** The package's version (package.json beside src/ and dist/): the description's version is the service's. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

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
function createConverter() {
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
function addDiscriminators(components: Record<string, Json>): void {
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

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** On every answer to a key with requestsPerMinute; Retry-After only on its 429. */
const KEY_LIMIT_HEADERS = Object.fromEntries(
  [
    ['RateLimit-Limit', "the key's requestsPerMinute"],
    ['RateLimit-Remaining', 'requests left in the current 60 s window'],
    ['RateLimit-Reset', 'seconds until the window resets'],
    ['RateLimit-Policy', '`N;w=60`'],
    ['Retry-After', 'seconds until the window resets (429 RATE_LIMIT_EXCEEDED of a limited key)'],
  ].map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
);

/** `{ allOf: [Error, { code: enum }] }`: the flat error, with the codes this answer can carry. */
const errorSchema = (codes: ErrorCode[]) => ({
  allOf: [ref('Error'), { type: 'object', properties: { code: { type: 'string', enum: codes } } }],
});

function errorResponses(route: RouteSpec, convert: (schema: z.ZodType, io: 'input' | 'output') => Json): Json {
  const pairs: [number, ErrorCode][] = (route.errors ?? []).map((code) => [ERROR_STATUS[code], code]);
  if (route.guard) {
    pairs.push([401, 'UNAUTHORIZED']);
    if (route.guard.accept.includes('pat')) pairs.push([401, 'INVALID_TOKEN'], [401, 'TOKEN_EXPIRED']);
    pairs.push([403, 'INSUFFICIENT_SCOPE']);
    if (route.guard.scope === 'keys' || route.guard.scope === 'manage') pairs.push([403, 'SCOPE_ESCALATION']);
    // A key with requestsPerMinute is limited on every route it authenticates (docs/api/keys-and-scopes.md#per-key-request-limits).
    if (route.guard.accept.includes('apiKey')) pairs.push([429, 'RATE_LIMIT_EXCEEDED']);
  }
  // Bodies are bounded: past the bound (100 MB for uploads) the answer is 413 VALIDATION_ERROR.
  if (route.body || route.path === '/image/upload') pairs.push([413, 'VALIDATION_ERROR']);
  // An Idempotency-Key: 400 when malformed, 409 when sent with another request or while its first request runs elsewhere.
  if (takesIdempotencyKey(route.method, route.path))
    pairs.push([400, 'VALIDATION_ERROR'], [409, 'IDEMPOTENCY_KEY_REUSED'], [409, 'IDEMPOTENCY_KEY_IN_USE']);
  pairs.push([500, 'INTERNAL_SERVER_ERROR']);
  // A route that writes may find no room (the disk full, a quota used up, free space below store.minFreeBytes): 507 with Retry-After.
  if (route.method !== 'get') pairs.push([507, 'STORAGE_FULL']);
  // Authenticating reads the store: with the database out of reach (PostgreSQL restarting), 503 with Retry-After.
  if (route.guard) pairs.push([503, 'STORE_UNAVAILABLE']);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [status, code] of pairs)
    if (!byStatus.get(status)?.includes(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  convert(ErrorBody, 'output');
  const responses: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(status)] = {
      description: `Request error: ${list.join(', ')}`,
      content: { 'application/json': { schema: errorSchema(list) } },
    };
  }
  if (route.guard?.accept.includes('apiKey')) (responses['429'] as Json).headers = KEY_LIMIT_HEADERS;
  if (responses['507'])
    (responses['507'] as Json).headers = {
      'Retry-After': {
        description: 'seconds to wait before retrying; writes resume by themselves once space is freed',
        schema: { type: 'string' },
      },
    };
  if (route.guard)
    (responses['503'] as Json).headers = {
      'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'string' } },
    };
  if (route.body || route.query) {
    const rejection = convert(route.family === 'image' ? ImageSchemaRejection : ResourceSchemaRejection, 'output');
    const existing = responses['400'] as
      | { content: Record<string, { schema: unknown }>; description: string }
      | undefined;
    const oneOf = [rejection, ...(existing ? [existing.content['application/json'].schema] : [])];
    const shape = route.family === 'image' ? '{ data, error, success: false }' : '{ success: false, errors }';
    const what = route.body
      ? 'a body that is not JSON (plain text "Malformed JSON in request body")'
      : 'query parameters outside their schema';
    responses['400'] = {
      description: `Schema rejection (${shape}), ${what}${existing ? `, or ${existing.description.toLowerCase()}` : ''}`,
      content: {
        'application/json': { schema: oneOf.length > 1 ? { oneOf } : oneOf[0] },
        ...(route.body
          ? { 'text/plain': { schema: { type: 'string', const: 'Malformed JSON in request body' } } }
          : {}),
      },
    };
  }
  return responses;
}

/** Parameters from the schema a handler parses its query (or headers) with; a catch-all becomes one form-exploded object. */
function parametersOf(
  schema: z.ZodObject,
  where: 'query' | 'header',
  convert: (schema: z.ZodType, io: 'input' | 'output') => Json,
): Json[] {
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

const pascal = (kind: string) => kind.replace(/(^|[._])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

/**
 * The OpenAPI 3.1 description of the API, generated from the mounted routes and the very zod
 * schemas that validate requests: one source of truth.
 */
export function buildOpenApi(routes: RouteSpec[], serverUrl: string) {
  const { convert, components } = createConverter();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter((r) => !r.internal)) {
    const path = openApiPath(route.path);
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
          Object.entries(other.headers).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
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
    paths[path] = { ...paths[path], [route.method]: operation };
  }

  const webhooks: Record<string, unknown> = {};
  const standardHeaders = (signed: string) =>
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
      name,
      in: 'header',
      required: name === 'webhook-id',
      description:
        name === 'webhook-id'
          ? 'the event id, the same on every retry'
          : `Standard Webhooks ${name.slice(8)} (${signed})`,
      schema: { type: 'string' },
    }));
  const webhook = (kind: string, summary: string, description: string, schema: Json, signed: string) => ({
    post: {
      operationId: `on${pascal(kind)}`,
      summary,
      description,
      tags: [EVENTS_TAG.name],
      security: [],
      parameters: standardHeaders(signed),
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: {
        '200': { description: 'Any 2xx marks the delivery delivered; anything else is retried on the schedule' },
      },
    },
  });
  const taskSigned = 'dashboard webhooks only; per-task custom endpoints are not signed';
  for (const { type, schema } of EVENT_PAYLOADS) {
    const [, taskType, status] = /^task\.(.+)\.(completed|failed)$/.exec(type)!;
    const carries = status === 'completed' ? 'the task result, as GET /tasks/{id}/result' : "the task's errors";
    webhooks[type] = webhook(
      type,
      `An ${taskType} task ${status}`,
      `Sent to subscribers of \`${type}\`, \`task.${status}\` and \`all\`; carries ${carries} and the task's metadata.`,
      convert(schema, 'output'),
      taskSigned,
    );
  }
  for (const status of ['completed', 'failed'] as const) {
    const oneOf = EVENT_PAYLOADS.filter((e) => e.completed === (status === 'completed')).map((e) =>
      convert(e.schema, 'output'),
    );
    webhooks[`task.${status}`] = webhook(
      `task.${status}`,
      `Any task ${status} (a subscription value)`,
      `A webhook subscribed to \`task.${status}\` receives the \`task.<type>.${status}\` event of every task type; the event's \`type\` names the task type.`,
      { oneOf },
      taskSigned,
    );
  }
  webhooks[TEST_EVENT_KIND] = webhook(
    TEST_EVENT_KIND,
    'A delivery check',
    'Sent by POST /webhook/{id}/test (imgtask webhooks test) to that webhook only, whatever it subscribes to.',
    convert(TestEvent, 'output'),
    'every webhook.test delivery is signed',
  );
  webhooks[BILLING_THRESHOLD_EVENT] = webhook(
    BILLING_THRESHOLD_EVENT,
    'A budget threshold reached',
    "Sent to the account's dashboard webhooks subscribed to `billing.threshold_reached` or `all` (a key's to those not bound to other keys) when a charge makes the account's month or a key's spending limit period reach a threshold of `billing.alerts.thresholds`: once per account or key, period and threshold.",
    convert(BillingThresholdEvent, 'output'),
    'every delivery is signed',
  );
  addDiscriminators(components);

  const used = new Set(
    Object.values(paths).flatMap((ops) => Object.values(ops).map((op) => (op as { tags: string[] }).tags[0])),
  );
  const tags = TAGS.filter((tag) => used.has(tag.name)).map(({ name, description }) => ({ name, description }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'imgtask',
      version: VERSION,
      description:
        'Self-hosted asynchronous image and video task service: image generation, rating, alt text, background removal and review; video generation; uploads. Every task is followed by polling, live events (SSE) or signed webhooks, and may be written to storage destinations; accounts manage their API keys, webhooks, destinations and usage.',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    servers: [{ url: serverUrl }],
    tags: [...tags, EVENTS_TAG],
    paths,
    webhooks,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (mak_…)' },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An OAuth access token (imgtask tokens issue)',
        },
        publicAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pat_ + JWT',
          description: 'A Public Access Token for one task, valid one hour',
        },
      },
    },
  };
}
