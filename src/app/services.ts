import type { ApiDeps } from '../api/types.js';
import type { Config } from '../config/schema.js';
import { createConfigSource } from '../config/source.js';
import type { ConsoleDeps } from '../console/deps.js';
import { isUnderAllowedRoot } from '../destinations/local-folder.js';
import { retentionMs } from '../domain/retention.js';
import { parseDuration } from '../domain/time.js';
import { createEngine } from '../engine/engine.js';
import { type AnyTaskType, TaskTypeRegistry } from '../engine/task-registry.js';
import { taskEventEnvelope, toProgressView } from '../engine/task-views.js';
import type { C2paLoad } from '../media/c2pa.js';
import { createSafeFetcher } from '../net/safe-fetch.js';
import type { ProviderSet } from '../providers/types.js';
import { createAccountErase } from '../services/account-erase.js';
import { createAccountService } from '../services/accounts.js';
import { createApiKeyService } from '../services/api-keys.js';
import { createAuthService } from '../services/auth.js';
import { createConsoleSessionService } from '../services/console-sessions.js';
import { createDataRemoval, removeStoredFiles } from '../services/data-removal.js';
import { createDestinationService } from '../services/destinations.js';
import { EventBus } from '../services/events.js';
import { createIdempotencyService } from '../services/idempotency.js';
import { createImageLibrary } from '../services/images.js';
import { createOperatorService } from '../services/operator.js';
import { type Clock, systemClock, type UrlFetcher } from '../services/ports.js';
import { createRetention } from '../services/retention.js';
import { createSecretService } from '../services/secrets.js';
import { createSpaceGuard } from '../services/space-guard.js';
import { createStorageInventory } from '../services/storage-inventory.js';
import { createTokenService } from '../services/tokens.js';
import { createUploadService } from '../services/uploads.js';
import { createUsageService } from '../services/usage.js';
import { createVerifySource } from '../services/verify-source.js';
import { createVideoLibrary } from '../services/videos.js';
import { createWebhookService } from '../services/webhooks/webhook-service.js';
import { nodeStorageFs, type StorageFs } from '../store/durable-fs.js';
import { createFreeSpaceWatch } from '../store/free-space.js';
import { createTaskTypes } from '../task-types/index.js';
import { createBillingAlerts } from '../webhooks/billing-alerts.js';
import { createOutbox } from '../webhooks/outbox.js';
import { newWebhookSecret } from '../webhooks/sign.js';
import { webhookTargetRefusal } from '../webhooks/target-check.js';
import type { AdminDeps } from './admin/deps.js';
import { adminDepsOf } from './admin-deps.js';
import { apiDepsOf } from './api-deps.js';
import { createApiOps } from './api-ops.js';
import { openBlobStores, tidyBlobStores } from './blob-storage.js';
import { consoleDepsOf } from './console-deps.js';
import { prepareDataDir } from './data-dir.js';
import { quietLibraryNotices } from './library-notices.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { type Logger, messageLog, silentLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import { openOutputSigner } from './output-signer.js';
import { createModelPreload } from './preload-models.js';
import { createEmbeddedRuntime, ffmpegPathOf } from './providers.js';
import { createReadiness } from './readiness.js';
import { createConfigReload, providerBuilder } from './reload.js';
import type { ServiceInternals } from './service-internals.js';
import { serviceInternals } from './service-internals.js';
import type { ServiceParts } from './service-parts.js';
import { createSingletonDuties } from './singleton-duties.js';
import { createDriverFactory } from './storage-drivers.js';
import { openStore } from './store-backend.js';
import { logDeliveryOutcome, logTaskLifecycle } from './task-log.js';

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
  /** Where the file store and the local blob stores write; Node's own (tests fail writes through it as a full disk would). */
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
    // A provider's own reports (a ComfyUI server down, then back) at their level; plain messages when the caller takes those.
    report: (level, message) => (options.log ? options.log(message) : logger[level]({ component: 'comfyui' }, message)),
  });
  const configReload = createConfigReload(config, providersFor, await orClose(providersFor(options.config)));

  // images.storage: the data dir's folders, or one S3-compatible bucket shared by every process (read at start).
  const blobs = await orClose(
    openBlobStores(options.config, { root: layout.root, secret: (name) => secrets.get(name), fs: storageFs }),
  );
  await tidyBlobStores(blobs, log);
  // Free space where the service writes: the store's folder (file store) and the blob folders (local storage).
  const freeSpace = createFreeSpaceWatch({
    fs: storageFs,
    folders: [...(fileStore ? [{ name: 'store', path: layout.store }] : []), ...blobs.folders],
  });
  const space = createSpaceGuard({
    readings: freeSpace.read,
    minFreeBytes: () => config.current().store.minFreeBytes,
    writeFailure: () => store.writeFailure(),
  });
  // Signs made images and videos as they are stored (provenance.*, read at start); a refused certificate stops the start.
  const outputSigner = await orClose(
    openOutputSigner({
      config: options.config,
      dataDir: layout.root,
      secret: (name) => secrets.get(name),
      log: options.log,
      logger,
      load: options.loadC2pa,
    }),
  );
  // Other URLs through the SSRF guard, built per call from the fetch.* settings in force, so a reload applies to the next fetch.
  const fetcher: UrlFetcher = {
    fetch: (url, signal) =>
      createSafeFetcher({ ...config.current().fetch, privateAddressesSetting: 'fetch.allowPrivateAddresses' }).fetch(
        url,
        signal,
      ),
  };
  const images = createImageLibrary({
    signer: outputSigner,
    log,
    space,
    blobs: blobs.images,
    fetcher,
    publicBase,
    config,
  });
  const uploads = createUploadService({
    images,
    store,
    clock,
    maxPixels: () => config.current().fetch.maxPixels,
    discard: (upload) => dataRemoval.removeUploadData(upload),
  });
  const videos = createVideoLibrary({
    blobs: blobs.videos,
    posters: blobs.posters,
    publicBase,
    ffmpegPath: () => ffmpegPathOf(config.current()),
    signer: outputSigner,
    log,
  });
  // What POST /image/verify reads: other URLs through the guarded fetcher.
  const verifySource = createVerifySource({
    store,
    images: blobs.images,
    videos: blobs.videos,
    publicBase,
    fetcher,
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

  const accounts = createAccountService(store, clock, () => config.current().retention);
  const apiKeys = createApiKeyService(store, clock, log);
  const tokens = createTokenService({ signingKey, clock, config });
  const auth = createAuthService({ store, apiKeys, tokens });
  // Webhook URLs deliveries could never reach, under the setting in force, are refused when given.
  const checkWebhookUrl = (url: string) => webhookTargetRefusal(url, config.current().webhooks.allowPrivateAddresses);
  // The task lifecycle: how created tasks reach a runner (this process's, or the fleet's on a shared database) is the engine's to pick.
  const engine = createEngine({
    store,
    registry,
    clock,
    events,
    config,
    tokens,
    log,
    space,
    checkWebhookUrl,
    discardFiles: (files) => removeStoredFiles(blobs, files),
  });
  // Each listener subscribes itself: the outbox records every settlement's event (durably, after the settlement itself).
  // A task being deleted has its settlement's event written scrubbed (dataRemoval is made just below; asked only once tasks run).
  const outbox = createOutbox({
    store,
    secretsKey,
    clock,
    config,
    events,
    log,
    eventTask: (task) => dataRemoval.eventTask(task),
  });
  // Managing webhooks (API, console, admin); its test and redeliver queue through the outbox.
  const webhooks = createWebhookService({
    store,
    clock,
    secretsKey,
    newSecret: newWebhookSecret,
    delivery: outbox,
    checkUrl: checkWebhookUrl,
  });
  // Deleting a task's or an upload's data (DELETE /tasks/{id}, /image/upload/{id}; retention and erase too).
  const dataRemoval = createDataRemoval({
    store,
    blobs,
    clock,
    cancel: (taskId) => engine.settlement.cancel(taskId),
    eventEnvelope: taskEventEnvelope,
    eventRecorded: (taskId) => outbox.recorded(taskId),
  });
  // Erasing an account (imgtask accounts erase), and finishing an erase a crash interrupted (at start and by the sweep).
  const accountErase = createAccountErase({ store, clock, removal: dataRemoval, log });
  // What has aged out (retention.*), removed by the sweep and by imgtask sweep.
  const retention = createRetention({
    store,
    config,
    clock,
    removal: dataRemoval,
    log,
    removed: metrics.countRetention,
  });
  const operator = createOperatorService({
    store,
    accounts,
    clock,
    publicBase,
    progressOf: (task) => toProgressView(task, engine.tasks.liveProgress(task.id)),
    queues: () => engine.queues(),
  });
  const idempotency = createIdempotencyService({ store, clock, secretsKey, log });
  // An event refused for lack of space is recorded once space returns, as a start would.
  afterSpaceReturns = () => {
    outbox.recoverMissing().then(
      (recovered) => recovered > 0 && log(`webhooks: recorded ${recovered} event(s) refused while the disk was full`),
      (err: Error) =>
        log(
          `webhooks: events refused while the disk was full not recorded yet (${err.message}); the next start records them`,
        ),
    );
  };
  // Budget alerts: each charging settlement is compared with the thresholds (billing.threshold_reached).
  const billingAlerts = createBillingAlerts({ store, clock, config, events, log });
  const usage = createUsageService({ store, clock });
  // What the blob storage holds, and orphans (imgtask doctor, --fix).
  const storageInventory = createStorageInventory({
    store,
    blobs,
    fixHeld: async () => {
      const refused = store.writeFailure();
      if (refused) return `the store refuses writes (${refused})`;
      const short = await space.problems();
      return short.length > 0 ? short.join('; ') : null;
    },
  });
  const consoleSessions = createConsoleSessionService({
    store,
    clock,
    auth,
    sessionTtlMs: () => parseDuration(config.current().console.sessionTtl) ?? 12 * 3_600_000,
    keepExpiredMs: () => retentionMs(config.current().retention.consoleSessions),
  });
  const singletonDuties = createSingletonDuties({
    outbox,
    accountErase,
    retention,
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
    config,
    configReload,
    clock,
    log,
    layout,
    publicBase,
    store,
    events,
    secrets,
    space,
    outputSigner,
    images,
    uploads,
    videos,
    verifySource,
    destinations,
    registry,
    accounts,
    apiKeys,
    tokens,
    auth,
    engine,
    outbox,
    webhooks,
    dataRemoval,
    accountErase,
    retention,
    operator,
    idempotency,
    billingAlerts,
    usage,
    storageInventory,
    consoleSessions,
    ops,
  };
  const api = apiDepsOf(parts);
  const admin = adminDepsOf(parts);
  const close = async () => {
    engine.streams.close();
    outbox.close();
    billingAlerts.close();
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
    internals: serviceInternals(parts, { admin, preloadModels: models.preload, close }),
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
