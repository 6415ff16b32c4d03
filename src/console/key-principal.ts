import type { Context } from 'hono';
import { enforceKeyRateLimit } from '../api/rate-limit.js';
import type { Scope } from '../domain/scopes.js';
import type { Principal } from '../services/auth.js';
import type { ConsoleSession } from '../services/console-sessions.js';
import type { ConsoleDeps, ConsoleEnv } from './console-deps.js';
import { type AccountSession, accountSession } from './console-http.js';

/**
 * The principal of a task the console creates or acts on: one of the account's own API keys,
 * chosen on the form, exactly as if the key had been sent to the API. Its scopes, spending
 * limit, request rate and expiry apply; a key of another account is API_KEY_NOT_FOUND.
 */
export async function keyPrincipal(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  session: ConsoleSession & { accountId: string },
  keyId: string,
  scope: Scope,
): Promise<Principal> {
  authorizeSession(deps, session, scope);
  // An expired or revoked key is API_KEY_NOT_FOUND here, as the service answers for it.
  const key = await deps.apiKeys.get(session.accountId, keyId);
  const principal: Principal = { kind: 'apiKey', accountId: session.accountId, keyId: key.id, scopes: key.scopes };
  if (key.requestsPerMinute !== undefined) principal.requestsPerMinute = key.requestsPerMinute;
  await enforceKeyRateLimit(c, deps.apiKeys, principal);
  deps.auth.authorize(principal, { accept: ['apiKey'], scope });
  return principal;
}

/**
 * The session itself must hold `scope` too: a session opened with an access token has that
 * token's scopes, and choosing one of the account's keys must not let it do more than the token
 * could on the API (a link's session holds every scope).
 */
export function authorizeSession(
  deps: ConsoleDeps,
  session: ConsoleSession & { accountId: string },
  scope: Scope,
): void {
  deps.auth.authorize(
    { kind: 'accessToken', accountId: session.accountId, scopes: session.scopes },
    { accept: ['accessToken'], scope },
  );
}

/** Reads the signed-in account holder of a page that needs `scope`, as the API route of that page does of a token. */
export function accountHolder(deps: ConsoleDeps, scope: Scope): (c: Context<ConsoleEnv>) => AccountSession {
  return (c) => {
    const session = accountSession(c);
    authorizeSession(deps, session, scope);
    return session;
  };
}
