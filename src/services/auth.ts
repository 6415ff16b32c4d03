import { AppError } from '../domain/errors.js';
import { API_KEY_SCOPES, isTokenOnlyScope, type Scope } from '../domain/scopes.js';
import type { AccountRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { ApiKeyService } from './api-keys.js';
import { PAT_PREFIX, type TokenService } from './tokens.js';

type CredentialKind = 'apiKey' | 'accessToken' | 'pat';

export type Principal =
  | { kind: 'apiKey'; accountId: string; keyId: string; scopes: string[]; requestsPerMinute?: number }
  | { kind: 'accessToken'; accountId: string; scopes: string[] }
  | { kind: 'pat'; accountId: string; taskId: string; scopes: string[] };

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

export interface RouteGuard {
  /** Credentials the route accepts (docs/api/keys-and-scopes.md#authentication-and-scopes). */
  accept: readonly CredentialKind[];
  /** Scope the credential must hold; PATs carry none and are checked against their task instead. */
  scope?: Scope;
  /**
   * The path parameter naming a task: a PAT minted for another task is TASK_NOT_FOUND
   * (docs/api/tasks.md), even on a route that refuses PATs; a PAT for this very task gets the usual answer.
   */
  taskParam?: string;
}

/** An account that exists and is not erased (nor being erased: docs/data-lifecycle.md#erasing-an-account). */
const takesRequests = (account: AccountRecord | undefined): account is AccountRecord =>
  account !== undefined && !account.erasedAt && !account.erasingSince;

const ACCEPTED_TEXT: Record<CredentialKind, string> = {
  apiKey: 'an API key',
  accessToken: 'an OAuth access token',
  pat: 'a public access token',
};

/** Who a request is: an API key, an access token or a Public Access Token, to a principal. */
export interface AuthService {
  /** The principal an Authorization header names; UNAUTHORIZED when it names none. */
  authenticate(header: string | undefined): Promise<Principal>;
  /**
   * Checks a principal against a route's guard; throws the documented error when it fails
   * (docs/api/keys-and-scopes.md#authentication-and-scopes).
   */
  authorize(principal: Principal, guard: RouteGuard, params?: Readonly<Record<string, string>>): void;
}

export function createAuthService(deps: { store: Store; apiKeys: ApiKeyService; tokens: TokenService }): AuthService {
  async function authenticate(header: string | undefined): Promise<Principal> {
    const match = header ? BEARER.exec(header) : null;
    if (!match) throw new AppError('UNAUTHORIZED', 'send a credential in the header Authorization: Bearer <token>');
    const token = match[1];

    if (token.startsWith('mak_')) {
      const key = await deps.apiKeys.resolve(token);
      // An expired key is refused as a deleted one is: UNAUTHORIZED
      // (docs/api/keys-and-scopes.md#key-expiry-and-rotation).
      if (!key || !takesRequests(await deps.store.accounts.get(key.accountId)))
        throw new AppError('UNAUTHORIZED', 'unknown, deleted or expired API key');
      deps.apiKeys.markUsed(key);
      const principal: Principal = { kind: 'apiKey', accountId: key.accountId, keyId: key.id, scopes: key.scopes };
      if (key.requestsPerMinute !== undefined) principal.requestsPerMinute = key.requestsPerMinute;
      return principal;
    }
    if (token.startsWith(PAT_PREFIX)) {
      const claims = await deps.tokens.verifyPat(token);
      if (!takesRequests(await deps.store.accounts.get(claims.accountId)))
        throw new AppError('UNAUTHORIZED', 'the account of this token is gone');
      return { kind: 'pat', accountId: claims.accountId, taskId: claims.taskId, scopes: [] };
    }
    const claims = await deps.tokens.verifyAccessToken(token);
    const account = claims.external
      ? ((await deps.store.accounts.get(claims.account)) ?? (await deps.store.accounts.getByName(claims.account)))
      : await deps.store.accounts.get(claims.account);
    if (!takesRequests(account))
      throw new AppError('UNAUTHORIZED', 'the access token names no account of this service');
    return { kind: 'accessToken', accountId: account.id, scopes: claims.scopes };
  }

  /**
   * Checks a principal against a route's guard; throws the documented error when it fails
   * (docs/api/keys-and-scopes.md#authentication-and-scopes).
   */
  function authorize(principal: Principal, guard: RouteGuard, params: Readonly<Record<string, string>> = {}): void {
    const { scope } = guard;
    if (principal.kind === 'pat' && guard.taskParam && principal.taskId !== params[guard.taskParam])
      throw new AppError('TASK_NOT_FOUND');
    if (!guard.accept.includes(principal.kind)) {
      // An API key on a route that needs a token-only scope is asking for that scope (rule 4).
      if (principal.kind === 'apiKey' && scope && isTokenOnlyScope(scope)) {
        throw new AppError(
          'SCOPE_ESCALATION',
          `an API key cannot use the scope ${scope}; this is done with an access token`,
          {
            scopes: { requested: [scope], allowed: [...API_KEY_SCOPES] },
          },
        );
      }
      const accepted = guard.accept.map((kind) => ACCEPTED_TEXT[kind]).join(' or ');
      throw new AppError('UNAUTHORIZED', `this route takes ${accepted}, not ${ACCEPTED_TEXT[principal.kind]}`);
    }
    if (principal.kind !== 'pat' && scope && !principal.scopes.includes(scope)) {
      throw new AppError('INSUFFICIENT_SCOPE', `this route needs the scope ${scope}`, {
        scopes: { required: [scope], current: principal.scopes },
      });
    }
  }

  return { authenticate, authorize };
}
