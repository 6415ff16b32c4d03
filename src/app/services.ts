import type { Config } from '../config/schema.js';
import { createAccountService } from '../services/accounts.js';
import { createApiKeyService } from '../services/api-keys.js';
import { createAuthService } from '../services/auth.js';
import { EventBus } from '../services/events.js';
import { createLoadLimits } from '../services/load-limits.js';
import { systemClock, type Clock } from '../services/ports.js';
import { type AnyTaskType, TaskTypeRegistry } from '../services/task-types.js';
import { createTaskService } from '../services/tasks.js';
import { createTokenService } from '../services/tokens.js';
import { JsonStore } from '../store/json-store.js';
import { join } from 'node:path';
import { createSafeFetcher } from '../net/safe-fetch.js';
import type { ProviderSet } from '../providers/types.js';
import { createImageLibrary } from '../services/images.js';
import { BlobStore } from '../store/blobs.js';
import { createTaskTypes } from '../tasks/index.js';
import { prepareDataDir } from './data-dir.js';
import { buildProviderSet, createEmbeddedRuntime, secretNames } from './providers.js';
import { createSecretService } from '../services/secrets.js';
import { createOutbox } from '../services/outbox.js';
import { createWebhookService } from '../services/webhooks.js';
import { newWebhookSecret } from '../webhooks/sign.js';
import { createDestinationService } from '../services/destinations.js';
import { isUnderAllowedRoot } from '../destinations/local-folder.js';
import { createDriverFactory } from './storage-drivers.js';

export interface ServiceOptions {
  dataDir: string;
  config: Config;
  clock?: Clock;
  log?: (message: string) => void;
  onFatal?: (err: Error) => void;
  /** Extra task types (tests register test-only ones). */
  taskTypes?: AnyTaskType[];
  /** Replaces providers by capability (tests use fakes of remote ones). */
  providers?: Partial<ProviderSet>;
}

/** Opens the store and builds every service over it. The one place they are constructed. */
export async function openServices(options: ServiceOptions) {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => undefined);
  const { layout, signingKey, secretsKey, created } = await prepareDataDir(options.dataDir);
  const store = await JsonStore.open({
    dir: layout.store,
    snapshotEveryBytes: options.config.store.snapshotEveryBytes,
    log,
    onFatal: options.onFatal,
  });
  const config = { current: options.config };
  let serverUrl = `http://${options.config.server.host}:${options.config.server.port}`;
  const publicBase = () => (config.current.publicUrl ?? serverUrl).replace(/\/+$/, '');
  const secrets = createSecretService(store, secretsKey, clock);
  const embedded = createEmbeddedRuntime(() => config.current);
  /** Builds the providers for a config, decrypting the secrets their keys live in. */
  const providersFor = async (next: Config) => {
    const values = new Map<string, string>();
    for (const name of secretNames(next)) {
      const value = await secrets.get(name);
      if (value === undefined) log(`providers: no secret "${name}" (imgtask secrets set ${name}); its provider runs without a key`);
      else values.set(name, value);
    }
    return buildProviderSet(next, embedded, values, options.providers);
  };
  let providers = await providersFor(options.config);
  const images = createImageLibrary({
    blobs: new BlobStore(join(layout.root, 'images')),
    // Built per call from the config in force, so a reload applies to the next fetch.
    fetcher: { fetch: (url) => createSafeFetcher(config.current.fetch).fetch(url) },
    publicBase,
    maxPixels: () => config.current.fetch.maxPixels,
  });
  const destinations = createDestinationService({
    store,
    clock,
    secretsKey,
    allowedRoots: () => config.current.destinations.local.allowedRoots,
    driver: createDriverFactory(() => config.current),
    isUnderAllowedRoot,
  });
  const registry = new TaskTypeRegistry();
  const builtIn = createTaskTypes({ config: { current: () => config.current }, providers: () => providers, images, destinations });
  for (const type of [...builtIn, ...(options.taskTypes ?? [])]) registry.register(type);
  const events = new EventBus();
  const accounts = createAccountService(store, clock);
  const apiKeys = createApiKeyService(store, clock);
  const tokens = createTokenService({ signingKey, clock, externalIssuer: options.config.auth.externalIssuer });
  const auth = createAuthService({ store, apiKeys, tokens });
  const limits = createLoadLimits(() => config.current.limits, clock);
  const tasks = createTaskService({ store, registry, tokens, clock, events, limits, log });
  const webhooks = createWebhookService({ store, clock, secretsKey, newSecret: newWebhookSecret });
  const outbox = createOutbox({ store, webhooks, clock, settings: () => config.current.webhooks, log });
  // Every settlement becomes an event in the outbox (durably, after the settlement itself).
  events.onTaskSettled(({ task }) => {
    outbox.recordTaskEvent(task).catch((err: Error) => log(`webhooks: event for task ${task.id} not recorded yet (${err.message}); the next start records it`));
  });
  return {
    get config() {
      return config.current;
    },
    async setConfig(next: Config) {
      providers = await providersFor(next);
      config.current = next;
    },
    /** Rebuilds the providers, after a secret they use changed. */
    async refreshProviders() {
      providers = await providersFor(config.current);
    },
    secrets,
    /** The address the server listens on, for service URLs when publicUrl is not set. */
    setServerUrl(url: string) {
      serverUrl = url;
    },
    publicBase,
    images,
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
    webhooks,
    outbox,
    destinations,
    close: async () => {
      await embedded.close();
      await store.close();
    },
  };
}

export type Services = Awaited<ReturnType<typeof openServices>>;
