import type { Config } from '../config/schema.js';
import type { ConfigSource } from '../config/source.js';
import type { SingletonDuties } from '../engine/intake/intake-types.js';
import type { ServiceParts } from './service-parts.js';

/** The pending tasks and their unfinished items, as the store holds them now. */
export interface PendingWork {
  tasks: number;
  items: number;
}

/** What the server (or a worker) does with the opened services: start, reload, readiness, stop. */
export interface Lifecycle {
  /** The config in force: the server reads its address and grace from it. */
  config: ConfigSource;
  /** Plain messages (the admin socket's failures, the config watch). */
  log: (message: string) => void;
  /** Where the running server's admin socket listens. */
  adminSocket: string;
  /** Whether this start made the data dir (or, on PostgreSQL, found no account yet). */
  firstStart: boolean;
  /** Starts the engine: this process's part of the work (`working`), or only its serving part. */
  start(working: boolean): Promise<void>;
  /** This process's name in task leases (a working process on a shared store). */
  workerId(): string | undefined;
  /** Stops taking work; running items get `graceMs`, then stay pending for the next start. */
  stopWork(graceMs: number): Promise<void>;
  /** Ends the open live status streams (their clients reconnect with Last-Event-ID). */
  closeStreams(): void;
  /** What is left pending in the store. */
  pendingWork(): Promise<PendingWork>;
  /**
   * Makes `next` the config in force, except `server`, `store` and `provenance`, which a running process
   * cannot change: those keep their values and are answered as deferred to the next start.
   */
  reload(next: Config): Promise<{ deferred: string[] }>;
  /** What keeps the service from being ready (GET /ready), one phrase each; empty when ready. */
  notReady(): Promise<string[]>;
  /**
   * Starts loading the models of the providers in force in the background (the server calls it once
   * it listens); `needed` false (`serve --no-work`) marks the preload as asked without loading.
   */
  preloadModels(needed?: boolean): void;
  /** The address the server listens on, for service URLs when publicUrl is not set. */
  setServerUrl(url: string): void;
  /** Closes the streams, the outbox, the models, the blob stores and the store (flushing the journal). */
  close(): Promise<void>;
}

/** What the lifecycle has of its own, beyond the services: made by openServices as it wires them. */
export interface LifecycleOwn {
  firstStart: boolean;
  /** What a working process runs besides tasks (handed to the engine when `start` is asked to work). */
  duties: SingletonDuties;
  preloadModels(needed?: boolean): void;
  setServerUrl(url: string): void;
  close(): Promise<void>;
}

/** The server's (or a worker's) handle on the opened services. */
export function createLifecycle(
  parts: Pick<ServiceParts, 'config' | 'log' | 'layout' | 'store' | 'engine' | 'configReload' | 'ops'>,
  own: LifecycleOwn,
): Lifecycle {
  const { engine, store } = parts;
  return {
    config: parts.config,
    log: parts.log,
    adminSocket: parts.layout.adminSocket,
    firstStart: own.firstStart,
    start: (working) => engine.start(working ? own.duties : null),
    workerId: () => engine.workerId(),
    stopWork: (graceMs) => engine.close(graceMs),
    closeStreams: () => engine.streams.close(),
    async pendingWork() {
      const tasks = await store.tasks.listPending();
      const items = tasks.reduce((sum, task) => sum + task.items.filter((item) => item.status === 'pending').length, 0);
      return { tasks: tasks.length, items };
    },
    reload: parts.configReload.reload,
    notReady: parts.ops.notReady,
    preloadModels: own.preloadModels,
    setServerUrl: own.setServerUrl,
    close: own.close,
  };
}
