import type { ApiDeps } from '../api/api-deps.js';
import type { Config } from '../config/schema.js';
import { createConfigSource } from '../config/source.js';
import type { ConsoleDeps } from '../console/console-deps.js';
import { isUnderAllowedRoot } from '../destinations/local-folder.js';
import { createEngine } from '../engine/engine.js';
import { type AnyTaskType, TaskTypeRegistry } from '../engine/task-registry.js';
import { toProgressView } from '../engine/task-views.js';
import type { C2paLoad } from '../media/c2pa.js';
import type { ProviderSet } from '../providers/provider-types.js';
import { removeStoredFiles } from '../services/data-removal.js';
import { createDestinationService } from '../services/destinations.js';
import { EventBus } from '../services/event-bus.js';
import { createIdempotencyService } from '../services/idempotency.js';
import { createOperatorService } from '../services/operator.js';
import { type Clock, systemClock } from '../services/ports.js';
import { createSecretService } from '../services/secrets.js';
import { createUploadService } from '../services/uploads.js';
import { createUsageService } from '../services/usage.js';
import { nodeStorageFs, type StorageFs } from '../store/durable-fs.js';
import { createTaskTypes } from '../task-types/task-modules.js';
import { webhookTargetRefusal } from '../webhooks/target-check.js';
import { createAccessServices } from './access-services.js';
import type { AdminDeps } from './admin/admin-deps.js';
import { createApiOps } from './api-ops.js';
import { prepareDataDir } from './data-dir.js';
import { createDataLifecycle } from './data-lifecycle.js';
import { adminDepsOf } from './facades/admin-facade.js';
import { apiDepsOf } from './facades/api-facade.js';
import { consoleDepsOf } from './facades/console-facade.js';
import { quietLibraryNotices } from './library-notices.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { type Logger, messageLog, silentLogger } from './logger.js';
import { openMediaServices } from './media-services.js';
import { createMetrics } from './metrics.js';
import { createModelPreload } from './preload-models.js';
import { createEmbeddedRuntime, ffmpegPathOf } from './providers.js';
import { createReadiness } from './readiness.js';
import { createConfigReload, providerBuilder } from './reload.js';
import { type ServiceInternals, serviceInternals } from './service-internals.js';
import type { ServiceParts } from './service-parts.js';
import { createSingletonDuties } from './singleton-duties.js';
import { createDriverFactory } from './storage-drivers.js';
import { openStore } from './store-backend.js';
import { logDeliveryOutcome, logTaskLifecycle } from './task-log.js';
import { createWebhookServices } from './webhook-services.js';

export interface ServiceOptions {
  dataDir: string;
  config: Config;
  clock?: Clock;
  /** Plain messages; without it they go to `logger`. */
  log?: (message: string) => void;
  /** The structured log (access, task and webhook lines); none: those lines are not written. */
  logger?: Logger;
  onFatal?: (err: Error) => void;
  /** Extra task types (tests register test-only ones). */
  taskTypes?: AnyTaskType[];
  /** Replaces providers by capability (tests use fakes of remote ones). */
  providers?: Partial<ProviderSet>;
  /**
   * Where the file store and the local blob stores write; Node's own (tests fail writes through it as a full disk
   * would).
   */
  storageFs?: StorageFs;
  /** Loads the C2PA library (tests inject one that does not load). */
  loadC2pa?: () => Promise<C2paLoad>;
}

/**
 * Opens the store and builds every service over it, in dependency order: the one place they
 * are constructed. The task engine is built here too (the task service hands it created
 * tasks), but runs nothing until `serve` or `worker` starts it; operator commands on a stopped
 * data dir never do.
 */
export async function openServices(options: ServiceOptions): Promise<Services> {
  const clock = options.clock ?? systemClock;
  quietLibraryNotices();
  const logger = options.logger ?? silentLogger();
  const log = options.log ?? messageLog(logger);
  const { layout, signingKey, secretsKey, created } = await prepareDataDir(options.dataDir);
  // store.driver: the data dir's journaled files, or PostgreSQL (the data dir still holds the keys and the images).
  const fileStore = options.config.store.driver === 'file';
  const storageFs = options.storageFs ?? nodeStorageFs;
  /** Set once the outbox exists: what a store taking writes again after a full disk catches up on. */
  let afterSpaceReturns = () => {};
  const store = await openStore(options.config, {
    dir: layout.store,
    log,
    onFatal: options.onFatal,
    onResume: () => afterSpaceReturns(),
    fs: storageFs,
  });
  /** A start-up step that, failing, closes the store first (an open pool would keep the process alive). */
  const orClose = <T>(step: Promise<T>): Promise<T> =>
    step.catch(async (err) => {
      await store.close().catch(() => {});
      throw err;
    });
  // On PostgreSQL the data dir has no store folder: a first start is one with no account yet.
  const firstStart = fileStore ? created : (await orClose(store.accounts.list())).length === 0;
  const config = createConfigSource(options.config);
  let serverUrl = `http://${options.config.server.host}:${options.config.server.port}`;
  const publicBase = () => (config.current().publicUrl ?? serverUrl).replace(/\/+$/, '');
  const events = new EventBus((name, err) => log(`events: a ${name} listener failed: ${(err as Error).stack ?? err}`));

  const secrets = createSecretService(store, secretsKey, clock);
  const embedded = createEmbeddedRuntime(config);
  const providersFor = providerBuilder({
    secret: (name) => secrets.get(name),
    embedded,
    injected: options.providers,
    log,
    // A provider's own reports (a ComfyUI server down, then back) at their level; plain messages when the caller takes
    // those.
    report: (level, message) => (options.log ? options.log(message) : logger[level]({ component: 'comfyui' }, message)),
  });
  const configReload = createConfigReload(config, providersFor, await orClose(providersFor(options.config)));

  const media = await orClose(
    openMediaServices({
      initial: options.config,
      config,
      layout,
      store,
      secret: (name) => secrets.get(name),
      fs: storageFs,
      publicBase,
      log,
      plainLog: options.log,
      logger,
      loadC2pa: options.loadC2pa,
    }),
  );
  const { blobs, space, outputSigner, images, videos } = media;
  const uploads = createUploadService({
    images,
    store,
    clock,
    maxPixels: () => config.current().fetch.maxPixels,
    discard: (upload) => dataLifecycle.dataRemoval.removeUploadData(upload),
  });
  const destinations = createDestinationService({
    store,
    clock,
    config,
    secretsKey,
    driver: createDriverFactory(config, [layout.exports]),
    isUnderAllowedRoot,
    localRoots: [layout.exports],
  });
  const registry = new TaskTypeRegistry();
  const builtIn = createTaskTypes({
    config,
    providers: configReload.providers,
    images,
    videos,
    destinations,
    ffmpegPath: () => ffmpegPathOf(config.current()),
  });
  const metrics = createMetrics({ store, lanes: () => engine.lanes.stats(), queues: () => engine.queues() });
  for (const type of [...builtIn, ...(options.taskTypes ?? [])]) registry.register(metrics.timed(type));

  const access = createAccessServices({ store, clock, config, signingKey, log });
  // Webhook URLs deliveries could never reach, under the setting in force, are refused when given.
  const checkWebhookUrl = (url: string) => webhookTargetRefusal(url, config.current().webhooks.allowPrivateAddresses);
  // The task lifecycle: how created tasks reach a runner (this process's, or the fleet's on a shared database) is the
  // engine's to pick.
  const engine = createEngine({
    store,
    registry,
    clock,
    events,
    config,
    tokens: access.tokens,
    log,
    space,
    checkWebhookUrl,
    discardFiles: (files) => removeStoredFiles(blobs, files),
  });
  // A task being deleted has its settlement's event written scrubbed (its data removal is made just below; asked only
  // once tasks run).
  const hooks = createWebhookServices({
    store,
    clock,
    config,
    events,
    secretsKey,
    log,
    checkUrl: checkWebhookUrl,
    eventTask: (task) => dataLifecycle.dataRemoval.eventTask(task),
  });
  const dataLifecycle = createDataLifecycle({
    store,
    blobs,
    clock,
    config,
    space,
    log,
    cancel: (taskId) => engine.settlement.cancel(taskId),
    eventRecorded: (taskId) => hooks.outbox.recorded(taskId),
    retentionRemoved: metrics.countRetention,
  });
  const operator = createOperatorService({
    store,
    accounts: access.accounts,
    clock,
    publicBase,
    progressOf: (task) => toProgressView(task, engine.tasks.liveProgress(task.id)),
    queues: () => engine.queues(),
  });
  const idempotency = createIdempotencyService({ store, clock, secretsKey, log });
  afterSpaceReturns = hooks.recoverRefusedEvents;
  const usage = createUsageService({ store, clock });
  const singletonDuties = createSingletonDuties({
    outbox: hooks.outbox,
    accountErase: dataLifecycle.accountErase,
    retention: dataLifecycle.retention,
    events,
    config,
    clock,
    log,
    onAttempt: (outcome) => {
      metrics.observeWebhookAttempt(outcome);
      logDeliveryOutcome(store, logger, outcome);
    },
  });

  logTaskLifecycle(events, logger);
  // A reload applies the log level at once (the format is read at start).
  if (options.logger) {
    config.onChange((next) => {
      logger.level = next.log.level;
    });
  }

  // Not when providers are injected: tests' fakes decide which models run, and a real one there loads on first use.
  const models = createModelPreload({
    providers: configReload.providers,
    enabled: () => !options.providers && config.current().embedded.preload,
    log,
  });
  const notReady = createReadiness({ store, storeDir: fileStore ? layout.store : null, space, models });
  const ops = createApiOps({ logger, metrics, notReady, outputSigner, store });

  const parts: ServiceParts = {
    ...media,
    ...access,
    ...hooks,
    ...dataLifecycle,
    config,
    configReload,
    clock,
    log,
    layout,
    publicBase,
    store,
    events,
    secrets,
    uploads,
    destinations,
    registry,
    engine,
    operator,
    idempotency,
    usage,
    ops,
  };
  const api = apiDepsOf(parts);
  const admin = adminDepsOf(parts);
  const close = async () => {
    engine.streams.close();
    hooks.outbox.close();
    hooks.billingAlerts.close();
    models.stop(); // then closing the models lets a load under way finish (embedded/thread-client.ts)
    engine.lanes.stop();
    await embedded.close();
    blobs.close();
    await store.close();
  };
  const lifecycle = createLifecycle(parts, {
    firstStart,
    duties: singletonDuties,
    preloadModels: models.preload,
    setServerUrl: (url) => {
      serverUrl = url;
    },
    close,
  });
  return {
    api,
    console: consoleDepsOf(parts, api, admin),
    admin,
    lifecycle,
    internals: serviceInternals(parts, { api, admin, preloadModels: models.preload, close }),
  };
}

/** The opened services: the adapters' facades, the server's lifecycle, and the internals of tests and benchmarks. */
export interface Services {
  api: ApiDeps;
  console: ConsoleDeps;
  admin: AdminDeps;
  lifecycle: Lifecycle;
  internals: ServiceInternals;
}
