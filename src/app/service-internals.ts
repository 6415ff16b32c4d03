import type { ApiDeps } from '../api/api-deps.js';
import type { Lanes } from '../engine/runner/lanes.js';
import type { TaskService } from '../engine/task-service.js';
import type { TaskSettler } from '../engine/task-settler.js';
import type { TaskStreams } from '../engine/task-stream.js';
import type { AdminDeps } from './admin/admin-deps.js';
import type { ServiceParts } from './service-parts.js';

/** The parts the internals view hands out as they are. */
type Exposed =
  | 'config'
  | 'clock'
  | 'log'
  | 'layout'
  | 'store'
  | 'events'
  | 'secrets'
  | 'accounts'
  | 'apiKeys'
  | 'tokens'
  | 'engine'
  | 'images'
  | 'videos'
  | 'webhooks'
  | 'outbox'
  | 'destinations'
  | 'dataRemoval'
  | 'accountErase'
  | 'retention'
  | 'operator'
  | 'consoleSessions'
  | 'billingAlerts';

/**
 * Every part of the opened services, for tests, benchmarks and the store dump to reach into: never
 * handed to an adapter (the API, the console and the admin operations get their facades).
 */
export interface ServiceInternals extends Pick<ServiceParts, Exposed> {
  /** The API's facade, for tests that build a variant of the API (a fault injected). */
  api: ApiDeps;
  /** The operator actions' facade (runAdminOp). */
  admin: AdminDeps;
  reload: ServiceParts['configReload']['reload'];
  preloadModels(needed?: boolean): void;
  close(): Promise<void>;
  settlement: TaskSettler;
  lanes: Lanes;
  tasks: TaskService;
  taskStreams: TaskStreams;
}

/** The internals view of `parts`, with the facade and the handles openServices made of them. */
export function serviceInternals(
  parts: ServiceParts,
  own: Pick<ServiceInternals, 'api' | 'admin' | 'preloadModels' | 'close'>,
): ServiceInternals {
  const { engine } = parts;
  return {
    api: own.api,
    admin: own.admin,
    config: parts.config,
    reload: parts.configReload.reload,
    preloadModels: own.preloadModels,
    close: own.close,
    clock: parts.clock,
    log: parts.log,
    layout: parts.layout,
    store: parts.store,
    events: parts.events,
    secrets: parts.secrets,
    accounts: parts.accounts,
    apiKeys: parts.apiKeys,
    tokens: parts.tokens,
    engine,
    settlement: engine.settlement,
    lanes: engine.lanes,
    tasks: engine.tasks,
    taskStreams: engine.streams,
    images: parts.images,
    videos: parts.videos,
    webhooks: parts.webhooks,
    outbox: parts.outbox,
    destinations: parts.destinations,
    dataRemoval: parts.dataRemoval,
    accountErase: parts.accountErase,
    retention: parts.retention,
    operator: parts.operator,
    consoleSessions: parts.consoleSessions,
    billingAlerts: parts.billingAlerts,
  };
}
