import type { Config } from '../config/schema.js';
import { createAccountService } from '../services/accounts.js';
import { createApiKeyService } from '../services/api-keys.js';
import { createAuthService } from '../services/auth.js';
import { systemClock, type Clock } from '../services/ports.js';
import { createTokenService } from '../services/tokens.js';
import { JsonStore } from '../store/json-store.js';
import { prepareDataDir } from './data-dir.js';

export interface ServiceOptions {
  dataDir: string;
  config: Config;
  clock?: Clock;
  log?: (message: string) => void;
  onFatal?: (err: Error) => void;
}

/** Opens the store and builds every service over it. The one place they are constructed. */
export async function openServices(options: ServiceOptions) {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => undefined);
  const { layout, signingKey, created } = await prepareDataDir(options.dataDir);
  const store = await JsonStore.open({
    dir: layout.store,
    snapshotEveryBytes: options.config.store.snapshotEveryBytes,
    log,
    onFatal: options.onFatal,
  });
  const accounts = createAccountService(store, clock);
  const apiKeys = createApiKeyService(store, clock);
  const tokens = createTokenService({ signingKey, clock, externalIssuer: options.config.auth.externalIssuer });
  const auth = createAuthService({ store, apiKeys, tokens });
  return { config: options.config, clock, log, layout, firstStart: created, store, accounts, apiKeys, tokens, auth, close: () => store.close() };
}

export type Services = Awaited<ReturnType<typeof openServices>>;
