import type { ConfigSource } from '../config/source.js';
import { retentionMs } from '../domain/retention.js';
import { parseDuration } from '../domain/time.js';
import { type AccountService, createAccountService } from '../services/accounts.js';
import { type ApiKeyService, createApiKeyService } from '../services/api-keys.js';
import { type AuthService, createAuthService } from '../services/auth.js';
import { type ConsoleSessionService, createConsoleSessionService } from '../services/console-sessions.js';
import type { Clock } from '../services/ports.js';
import { createTokenService, type TokenService } from '../services/tokens.js';
import type { Store } from '../store/store-contract.js';

/** Who may do what: accounts, their API keys, tokens, request authentication and console sessions. */
export interface AccessServices {
  accounts: AccountService;
  apiKeys: ApiKeyService;
  tokens: TokenService;
  auth: AuthService;
  consoleSessions: ConsoleSessionService;
}

export function createAccessServices(deps: {
  store: Store;
  clock: Clock;
  config: ConfigSource;
  /** Signs access tokens and PATs (the data dir's key). */
  signingKey: Uint8Array;
  log: (message: string) => void;
}): AccessServices {
  const { store, clock, config } = deps;
  const accounts = createAccountService(store, clock, () => config.current().retention);
  const apiKeys = createApiKeyService(store, clock, deps.log);
  const tokens = createTokenService({ signingKey: deps.signingKey, clock, config });
  const auth = createAuthService({ store, apiKeys, tokens });
  const consoleSessions = createConsoleSessionService({
    store,
    clock,
    auth,
    sessionTtlMs: () => parseDuration(config.current().console.sessionTtl) ?? 12 * 3_600_000,
    keepExpiredMs: () => retentionMs(config.current().retention.consoleSessions),
  });
  return { accounts, apiKeys, tokens, auth, consoleSessions };
}
