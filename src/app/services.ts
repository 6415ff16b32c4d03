import type { Config } from '../config/schema.js';
import { createAccountService } from '../services/accounts.js';
import { createApiKeyService } from '../services/api-keys.js';
import { createAuthService } from '../services/auth.js';
import { EventBus } from '../services/events.js';
import { createLoadLimits } from '../services/load-limits.js';
import { systemClock, type Clock } from '../services/ports.js';
import { TaskTypeRegistry, type TaskTypeDefinition } from '../services/task-types.js';
import { createTaskService } from '../services/tasks.js';
import { createTokenService } from '../services/tokens.js';
import { JsonStore } from '../store/json-store.js';
import { prepareDataDir } from './data-dir.js';

export interface ServiceOptions {
  dataDir: string;
  config: Config;
  clock?: Clock;
  log?: (message: string) => void;
  onFatal?: (err: Error) => void;
  /** Extra task types (tests register test-only ones). */
  taskTypes?: TaskTypeDefinition<never>[];
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
  const config = { current: options.config };
  const registry = new TaskTypeRegistry();
  for (const type of options.taskTypes ?? []) registry.register(type as TaskTypeDefinition<unknown>);
  const events = new EventBus();
  const accounts = createAccountService(store, clock);
  const apiKeys = createApiKeyService(store, clock);
  const tokens = createTokenService({ signingKey, clock, externalIssuer: options.config.auth.externalIssuer });
  const auth = createAuthService({ store, apiKeys, tokens });
  const limits = createLoadLimits(() => config.current.limits, clock);
  const tasks = createTaskService({ store, registry, tokens, clock, events, limits, log });
  return {
    get config() {
      return config.current;
    },
    setConfig(next: Config) {
      config.current = next;
    },
    clock,
    log,
    layout,
    firstStart: created,
    store,
    registry,
    events,
    accounts,
    apiKeys,
    tokens,
    auth,
    tasks,
    close: () => store.close(),
  };
}

export type Services = Awaited<ReturnType<typeof openServices>>;
