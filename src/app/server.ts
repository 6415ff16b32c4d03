import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../api/api-deps.js';
import { createApi } from '../api/app.js';
import type { ConfigFlags } from '../config/load.js';
import { mountConsole } from '../console/mount.js';
import { listenAdminSocket } from './admin-socket.js';
import { watchConfig } from './config-watch.js';
import type { ServiceInternals } from './service-internals.js';
import { openServices, type ServiceOptions } from './services.js';

export interface ServerOptions extends ServiceOptions {
  /** The config file to watch and reload live (with the flags it was loaded with). */
  configFile?: { path: string; flags: ConfigFlags };
  /** Mounts extra routes (tests add create routes for test-only task types). */
  extendApi?: (app: Hono<ApiEnv>, deps: ApiDeps) => void;
  /**
   * What this process does: "all" (the API and the work: `serve`), "api" (the API only, no
   * runner, dispatcher or sweep: `serve --no-work`) or "work" (lanes, webhook dispatch and the
   * sweep, no HTTP listener: `worker`). "api" and "work" need store.driver postgres.
   */
  role?: ServerRole;
}

export type ServerRole = 'all' | 'api' | 'work';

/** Why a role cannot run on the configured store, or null. */
export function roleProblem(role: ServerRole, driver: string): string | null {
  if (role === 'all' || driver === 'postgres') return null;
  const what = role === 'api' ? 'serve --no-work' : 'imgtask worker';
  return `${what} needs store.driver "postgres" (set store.postgres.url or IMGTASK_DATABASE_URL): the file store belongs to one process, and imgtask serve runs the API and the work together on it`;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Every part of the opened services, for tests and benchmarks; the API and the console get their facades. */
  services: ServiceInternals;
  /** Whether this start made the data dir (or, on PostgreSQL, found no account yet). */
  firstStart: boolean;
  /** The HTTP API as mounted (tests read its route table). */
  api: Hono<ApiEnv>;
  /** Stops accepting, lets running items finish within the grace, closes the store (flushes the journal). */
  close(): Promise<LeftPending | null>;
}

/**
 * What a stop left for later, read from the store once the work has stopped: the pending tasks
 * and their unfinished items (on the file store they run at the next start; on a shared store,
 * in whichever working process takes them). Null when the process ran no work, or the store
 * could not be read.
 */
export interface LeftPending {
  tasks: number;
  items: number;
  /** Other working processes may take them (a store processes share: PostgreSQL). */
  fleet: boolean;
}

const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

export interface RunningWorker {
  /** Every part of the opened services, for tests and benchmarks. */
  services: ServiceInternals;
  /** This process's id in task leases. */
  workerId: string;
  /** Stops claiming, lets running items finish within the grace, gives its leases back, closes the store. */
  close(): Promise<LeftPending | null>;
}

/** `imgtask worker`: the lanes, the webhook dispatcher (when elected) and the sweep, with no HTTP listener. */
export async function startWorker(options: Omit<ServerOptions, 'role' | 'extendApi'>): Promise<RunningWorker> {
  const started = await startProcess({ ...options, role: 'work' });
  return { services: started.services, workerId: started.workerId!, close: started.close };
}

/** Starts the whole service: store, workers (resuming pending tasks), HTTP API, admin socket. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const started = await startProcess(options);
  return {
    url: started.url!,
    port: started.port!,
    services: started.services,
    firstStart: started.firstStart,
    api: started.api!,
    close: started.close,
  };
}

async function startProcess(options: ServerOptions) {
  const role = options.role ?? 'all';
  const problem = roleProblem(role, options.config.store.driver);
  if (problem) throw new Error(problem);
  const services = await openServices(options);
  const { lifecycle } = services;
  const { config } = lifecycle;
  const working = role !== 'api';
  let http: ServerType | undefined;
  let admin: { close(): Promise<void> } | undefined;
  let configWatch: { close(): Promise<void> } | undefined;
  try {
    // The engine's intake decides what runs here: the file store's one process takes every task
    // and dispatches; on a shared database the processes claim tasks, one of them dispatches.
    await lifecycle.start(working);
    let api: Hono<ApiEnv> | undefined;
    let url: string | undefined;
    let port: number | undefined;
    if (role !== 'work') {
      api = createApi(services.api, (app, deps) => {
        mountConsole(app, services.console);
        options.extendApi?.(app, deps);
      });
      const { host, port: wanted, requestTimeout } = config.current().server;
      // Node checks the receipt deadline on a timer (every 30 s by default): checked every
      // second at most, a request cut off at requestTimeout is cut off close to it.
      const serverOptions = { requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) };
      const address = await new Promise<AddressInfo>((resolve, reject) => {
        http = serve({ fetch: api!.fetch, hostname: host, port: wanted, serverOptions }, (info) => resolve(info));
        http.once('error', reject);
      });
      admin = await listenAdminSocket(services.admin, lifecycle.adminSocket, lifecycle.log);
      url = `http://${urlHost(host)}:${address.port}`;
      port = address.port;
      lifecycle.setServerUrl(url);
    }
    if (options.configFile) {
      configWatch = await watchConfig({
        file: options.configFile.path,
        flags: options.configFile.flags,
        apply: (next) => lifecycle.reload(next),
        log: lifecycle.log,
        workflows: config.current().workflows,
      });
    }
    lifecycle.preloadModels(working); // in the background: start-up does not wait for it; an API-only process loads none
    let closing: Promise<LeftPending | null> | undefined;
    return {
      url,
      port,
      services: services.internals,
      firstStart: lifecycle.firstStart,
      api,
      workerId: lifecycle.workerId(),
      close: () =>
        (closing ??= (async () => {
          // Open live status streams end now (their clients reconnect with Last-Event-ID); each would hold its
          // connection, and the close, open.
          lifecycle.closeStreams();
          await configWatch?.close();
          const httpClosed = http ? new Promise<void>((resolve) => http!.close(() => resolve())) : Promise.resolve();
          // close() drops the connections idle now; one still answering (an image stream whose
          // last bytes the client already has) would then linger for the keep-alive timeout.
          // So keep dropping connections as they go idle, until the last one is gone.
          const dropIdle =
            http && 'closeIdleConnections' in http
              ? setInterval(() => (http as Server).closeIdleConnections(), 20).unref()
              : undefined;
          void httpClosed.then(() => clearInterval(dropIdle));
          // A process with a worker id takes its tasks by lease, beside others (the shared intake).
          const fleet = lifecycle.workerId() !== undefined;
          await lifecycle.stopWork(config.current().work.shutdownGraceMs);
          const left = working
            ? await lifecycle.pendingWork().then(
                (pending) => ({ ...pending, fleet }),
                () => null,
              )
            : null;
          await httpClosed;
          await admin?.close();
          await lifecycle.close();
          return left;
        })()),
    };
  } catch (err) {
    http?.close();
    await admin?.close();
    await lifecycle.stopWork(0);
    await lifecycle.close();
    throw err;
  }
}
