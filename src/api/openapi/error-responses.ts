import { ERROR_STATUS, type ErrorCode } from '../../domain/errors.js';
import { takesIdempotencyKey } from '../idempotency.js';
import type { RouteSpec } from '../route.js';
import { type Convert, type Json, ref } from './converter.js';
import { ErrorBody, ImageSchemaRejection, ResourceSchemaRejection } from './schemas.js';

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

export function errorResponses(route: RouteSpec, convert: Convert): Json {
  const pairs: [number, ErrorCode][] = (route.errors ?? []).map((code) => [ERROR_STATUS[code], code]);
  if (route.guard) {
    pairs.push([401, 'UNAUTHORIZED']);
    if (route.guard.accept.includes('pat')) pairs.push([401, 'INVALID_TOKEN'], [401, 'TOKEN_EXPIRED']);
    pairs.push([403, 'INSUFFICIENT_SCOPE']);
    if (route.guard.scope === 'keys' || route.guard.scope === 'manage') pairs.push([403, 'SCOPE_ESCALATION']);
    // A key with requestsPerMinute is limited on every route it authenticates
    // (docs/api/keys-and-scopes.md#per-key-request-limits).
    if (route.guard.accept.includes('apiKey')) pairs.push([429, 'RATE_LIMIT_EXCEEDED']);
  }
  // Bodies are bounded: past the bound (100 MB for uploads) the answer is 413 VALIDATION_ERROR.
  if (route.body || route.path === '/image/upload') pairs.push([413, 'VALIDATION_ERROR']);
  // An Idempotency-Key: 400 when malformed, 409 when sent with another request or while its first request runs
  // elsewhere.
  if (takesIdempotencyKey(route.method, route.path))
    pairs.push([400, 'VALIDATION_ERROR'], [409, 'IDEMPOTENCY_KEY_REUSED'], [409, 'IDEMPOTENCY_KEY_IN_USE']);
  pairs.push([500, 'INTERNAL_SERVER_ERROR']);
  // A route that writes may find no room (the disk full, a quota used up, free space below store.minFreeBytes): 507
  // with Retry-After.
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
