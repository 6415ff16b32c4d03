import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../domain/errors.js';
import type { ApiKeyService, KeyRateState } from '../services/api-keys.js';
import type { Principal } from '../services/auth.js';

/** The window state of each answered request of a limited key, for answers built without its headers. */
const STATES = new WeakMap<Context, KeyRateState>();

/**
 * The IETF draft's names (draft-ietf-httpapi-ratelimit-headers): limit, what is left, seconds until the window resets,
 * and the policy.
 */
function rateLimitHeaders(state: KeyRateState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
    'RateLimit-Policy': `${state.limit};w=60`,
  };
}

/**
 * Counts a request authenticated by a key with `requestsPerMinute` and sets the RateLimit-*
 * headers on its answer; past the limit, 429 RATE_LIMIT_EXCEEDED with Retry-After. A key
 * without a limit (or another credential) costs nothing here.
 */
export async function enforceKeyRateLimit(
  c: Context,
  apiKeys: Pick<ApiKeyService, 'countRequest'>,
  principal: Principal,
): Promise<void> {
  if (principal.kind !== 'apiKey' || principal.requestsPerMinute === undefined) return;
  const state = await apiKeys.countRequest(principal.keyId, principal.requestsPerMinute);
  STATES.set(c, state);
  const headers = rateLimitHeaders(state);
  // Set before the answer exists, so c.json() builds it with them (see app.ts on x-request-id).
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  if (!state.allowed) {
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `this key may make ${state.limit} requests per minute; retry in ${state.resetSeconds} s`,
      {
        headers: { ...headers, 'Retry-After': String(state.resetSeconds) },
      },
    );
  }
}

/** Adds the RateLimit-* headers to answers built as raw Responses (schema rejections, images) of a limited key. */
export function keyRateLimitHeaders(): MiddlewareHandler {
  return async function keyRateLimitHeaders(c, next) {
    await next();
    const state = STATES.get(c);
    if (state && !c.res.headers.has('ratelimit-limit'))
      for (const [name, value] of Object.entries(rateLimitHeaders(state))) c.header(name, value);
  };
}
