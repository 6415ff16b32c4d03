import type { Context } from 'hono';
import { enforceKeyRateLimit } from '../api/rate-limit.js';
import { AppError } from '../domain/errors.js';
import type { Scope } from '../domain/scopes.js';
import type { Principal } from '../services/auth.js';
import type { ConsoleSession } from '../services/console-sessions.js';
import type { ConsoleDeps, ConsoleEnv } from './deps.js';

/**
 * The principal of a task the console creates or acts on: one of the account's own API keys,
 * chosen on the form, exactly as if the key had been sent to the API. Its scopes, spending
 * limit, request rate and expiry apply; a key of another account is API_KEY_NOT_FOUND.
 */
export async function keyPrincipal(c: Context<ConsoleEnv>, deps: ConsoleDeps, session: ConsoleSession & { accountId: string }, keyId: string, scope: Scope): Promise<Principal> {
  const key = await deps.apiKeys.get(session.accountId, keyId);
  if (key.expiresAt && Date.parse(key.expiresAt) <= deps.clock.now()) throw new AppError('UNAUTHORIZED', `the key ${key.name ?? key.id} has expired: choose another`);
  const principal: Principal = { kind: 'apiKey', accountId: session.accountId, keyId: key.id, scopes: key.scopes };
  if (key.requestsPerMinute !== undefined) principal.requestsPerMinute = key.requestsPerMinute;
  await enforceKeyRateLimit(c, deps.apiKeys, principal);
  deps.auth.authorize(principal, { accept: ['apiKey'], scope });
  return principal;
}
