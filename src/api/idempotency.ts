import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../services/auth.js';
import type { StoredAnswer } from '../services/idempotency.js';
import { UPLOAD_LIMITS } from '../services/uploads.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { readStreamBounded } from './body.js';
import { assertBodyArrived } from './cut-short.js';
import { MalformedJsonError, parseRequestJson } from './json-depth.js';
import { enforceKeyRateLimit } from './rate-limit.js';
import { routesOf } from './route.js';

/**
 * The creating POSTs that take an `Idempotency-Key` (hono path syntax): every task-creating
 * route (and the test suite's own, /test/tasks), and those that create a resource or mint a
 * secret.
 */
const IDEMPOTENT_PATHS = [
  '/image/generate',
  '/image/rate',
  '/image/alt',
  '/image/remove-background',
  '/image/review',
  '/image/upload',
  '/video/generate',
  '/test/tasks',
  '/api-key',
  '/api-key/:id/rotate',
  '/webhook',
  '/webhook/:id/rotate-secret',
  '/destinations',
] as const;

/** A hono path as a regular expression, its parameters as named groups. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`);
const PATTERNS = IDEMPOTENT_PATHS.map((path) => ({ path, pattern: patternOf(path) }));

/** Whether a route (its method and hono path) takes an Idempotency-Key: the API description asks. */
export const takesIdempotencyKey = (method: string, path: string): boolean =>
  method.toLowerCase() === 'post' && (IDEMPOTENT_PATHS as readonly string[]).includes(path);

/** 1 to 255 printable ASCII characters (space to tilde). */
const KEY = /^[\x20-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes the request safe to retry: the same key with the same request (method, path, body) within 24 h answers the first answer again (header Idempotent-Replayed: true) without doing it twice; with another request, 409 IDEMPOTENCY_KEY_REUSED. 1 to 255 printable ASCII characters, scoped to the account.';

/** Response headers kept with an answer and replayed (x-request-id is each request's own). */
const REPLAYED_HEADERS = ['content-type', 'location', 'retry-after'];

/**
 * Whether an answer is kept for replay: every answer the route finished (2xx, and 4xx that
 * reflect the request, 422 INSUFFICIENT_BALANCE included), and the 500s that report a task's own
 * failure (the task exists: a retry must not make another). Not kept, so a retry runs again:
 * 401/403 (the credential, not the request), 429 (wait and retry is the advice) and any other
 * 5xx (an unexpected failure).
 */
function kept(status: number, code: string | undefined): boolean {
  if (status === 401 || status === 403 || status === 429) return false;
  if (status < 500) return true;
  return code === 'UNKNOWN_ERROR' || code === 'ENQUEUE_FAILED';
}

const tooLarge = (upload: boolean, limit: number) =>
  new AppError(
    'VALIDATION_ERROR',
    upload
      ? `the upload body is larger than ${limit / 1024 / 1024} MB`
      : `the request body is larger than ${limit} bytes`,
    { status: 413 },
  );

/** Reads the whole body, refusing more than `limit` bytes with 413, as each route does. */
async function readBounded(c: Context<ApiEnv>, limit: number, upload: boolean): Promise<Uint8Array> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(upload, limit);
  const body = c.req.raw.body;
  const bytes = body ? await readStreamBounded(body, limit, () => tooLarge(upload, limit)) : new Uint8Array(0);
  assertBodyArrived(c);
  return bytes;
}

/**
 * Hands the route the bytes already read, as the request's body (the upload route reads `c.env.incoming` first: it is
 * spent).
 */
function replaceBody(c: Context<ApiEnv>, bytes: Uint8Array): void {
  const headers = new Headers(c.req.raw.headers);
  headers.delete('transfer-encoding');
  headers.set('content-length', String(bytes.byteLength));
  c.req.raw = new Request(c.req.raw.url, {
    method: c.req.raw.method,
    headers,
    body: bytes.byteLength > 0 ? bytes : null,
  });
  if (c.env?.incoming) c.env = { ...c.env, incoming: undefined };
}

/** JSON with object keys sorted at every level: equal values, equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What makes two requests "the same": the method, the path and the body. A JSON body counts by
 * its value (key order and spacing aside); a multipart body by its bytes with the boundary
 * (random per send in most clients) taken out; anything else by its bytes.
 */
function fingerprintOf(method: string, path: string, contentType: string, bytes: Uint8Array): string {
  const hash = createHash('sha256').update(`${method} ${path}\n`);
  const boundary = /^multipart\/form-data/i.test(contentType)
    ? /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
    : null;
  if (boundary) {
    const text = Buffer.from(bytes).toString('latin1');
    return hash.update(text.split(`--${boundary[1] ?? boundary[2]}`).join('--'), 'latin1').digest('hex');
  }
  const text = Buffer.from(bytes).toString('utf8');
  try {
    if (text.trim() !== '') return hash.update(`json:${canonical(parseRequestJson(text))}`).digest('hex');
  } catch (err) {
    if (!(err instanceof MalformedJsonError) && !(err instanceof AppError)) throw err;
  }
  return hash.update(bytes).digest('hex');
}

async function captured(res: Response): Promise<StoredAnswer | null> {
  const body = await res.clone().text();
  let code: string | undefined;
  try {
    code = (JSON.parse(body) as { code?: string })?.code;
  } catch {}
  if (!kept(res.status, code)) return null;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: res.status, headers, body };
}

/**
 * The `Idempotency-Key` header on the creating POSTs. With the header, the credential is
 * authenticated (one that fails is left to the route to refuse, unread), the body read once
 * and handed on to the route, and the request fingerprinted; then the key's first request runs
 * and its answer is kept, and a retry gets that answer again with `Idempotent-Replayed: true`.
 */
export function idempotency(deps: ApiDeps, app: object): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key === undefined || c.req.method !== 'POST') return next();
    const found = PATTERNS.map(({ path, pattern }) => ({ path, exec: pattern.exec(c.req.path) })).find((m) => m.exec);
    const match = found && { path: found.path, params: { ...found.exec?.groups } };
    // Only a mounted route: its guard decides, here as there, who may have its answers.
    const spec = match && routesOf(app).find((route) => route.method === 'post' && route.path === match.path);
    if (!match || !spec) return next();
    // A credential that fails is left to the route, which refuses it as always (counted, body unread).
    let principal: Principal;
    try {
      principal = await deps.auth.authenticate(c.req.header('authorization'));
      if (spec.guard) deps.auth.authorize(principal, spec.guard, match.params);
    } catch {
      return next();
    }
    c.set('principal', principal);
    if (!KEY.test(key))
      throw new AppError('VALIDATION_ERROR', 'the Idempotency-Key header must be 1 to 255 printable ASCII characters');
    const upload = c.req.path === '/image/upload';
    const bytes = await readBounded(
      c,
      upload ? UPLOAD_LIMITS.maxBody : deps.config.current().server.bodyLimitBytes,
      upload,
    );
    replaceBody(c, bytes);
    const outcome = await deps.idempotency.begin(
      principal.accountId,
      key,
      fingerprintOf(c.req.method, c.req.path, c.req.header('content-type') ?? '', bytes),
    );
    if (outcome.kind === 'replay') {
      // A replay is a request of the key like any other: it counts against the key's requestsPerMinute (the route
      // counts the others).
      await enforceKeyRateLimit(c, deps.apiKeys, principal);
      const { status, headers, body } = outcome.answer;
      return c.newResponse(body, status as ContentfulStatusCode, { ...headers, 'idempotent-replayed': 'true' });
    }
    let answer: StoredAnswer | null = null;
    try {
      await next();
      answer = await captured(c.res);
    } finally {
      // The answer stands whether or not it could be kept.
      await outcome
        .finish(answer)
        .catch((err: Error) => deps.log(`idempotency: the answer for key ${key} was not kept: ${err.message}`));
    }
  };
}
