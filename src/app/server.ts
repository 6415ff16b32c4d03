import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { createApi } from '../api/app.js';
import type { ApiDeps, ApiEnv } from '../api/types.js';
import type { ConfigFlags } from '../config/load.js';
import { deliverWebhook } from '../webhooks/deliver.js';
import { startSweepTimer } from '../worker/sweep-timer.js';
import { createWebhookDispatcher } from '../worker/webhook-dispatcher.js';
import { listenAdminSocket } from './admin-socket.js';
import { watchConfig } from './config-watch.js';
import { openServices, type ServiceOptions, type Services } from './services.js';

export interface ServerOptions extends ServiceOptions {
  /** The config file to watch and reload live (with the flags it was loaded with). */
  configFile?: { path: string; flags: ConfigFlags };
  /** Mounts extra routes (tests add create routes for test-only task types). */
  extendApi?: (app: Hono<ApiEnv>, deps: ApiDeps) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** The HTTP API as mounted (tests read its route table). */
  api: Hono<ApiEnv>;
  /** Stops accepting, lets running items finish within the grace, closes the store (flushes the journal). */
  close(): Promise<void>;
}

const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Starts the whole service: store, workers (resuming pending tasks), HTTP API, admin socket. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const services = await openServices(options);
  const { config, runner } = services;
  let http: ServerType | undefined;
  let admin: { close(): Promise<void> } | undefined;
  const dispatcher = createWebhookDispatcher({
    outbox: services.outbox,
    events: services.events,
    config,
    log: services.log,
    onAttempt: services.observeWebhookAttempt,
    send: (delivery, message) => {
      const { timeoutMs, allowPrivateAddresses } = config.current().webhooks;
      return deliverWebhook({ url: delivery.url, secret: message.secret }, message, { timeoutMs, allowPrivateAddresses, now: () => services.clock.now() });
    },
  });
  let sweeper: { stop(): void } | undefined;
  let configWatch: { close(): Promise<void> } | undefined;
  try {
    const recovered = await services.outbox.recoverMissing();
    if (recovered) services.log(`webhooks: recorded ${recovered} event(s) missing after a crash`);
    dispatcher.start();
    runner.resume(await services.store.tasks.listPending());
    sweeper = startSweepTimer(services.tasks, config, services.log);
    const api = createApi(services, options.extendApi);
    const { host, port } = config.current().server;
    const address = await new Promise<AddressInfo>((resolve, reject) => {
      http = serve({ fetch: api.fetch, hostname: host, port }, (info) => resolve(info));
      http.once('error', reject);
    });
    admin = await listenAdminSocket(services, services.layout.adminSocket);
    if (options.configFile) {
      configWatch = await watchConfig({ file: options.configFile.path, flags: options.configFile.flags, apply: (next) => services.reload(next), log: services.log });
    }
    const url = `http://${urlHost(host)}:${address.port}`;
    services.setServerUrl(url);
    services.preloadModels(); // in the background: start-up does not wait for it
    let closing: Promise<void> | undefined;
    return {
      url,
      port: address.port,
      services,
      api,
      close: () =>
        (closing ??= (async () => {
          sweeper?.stop();
          await configWatch?.close();
          const httpClosed = new Promise<void>((resolve) => http!.close(() => resolve()));
          // close() drops the connections idle now; one still answering (an image stream whose
          // last bytes the client already has) would then linger for the keep-alive timeout.
          // So keep dropping connections as they go idle, until the last one is gone.
          const dropIdle = 'closeIdleConnections' in http! ? setInterval(() => (http as Server).closeIdleConnections(), 20).unref() : undefined;
          void httpClosed.then(() => clearInterval(dropIdle));
          const { work, webhooks } = config.current();
          await runner.close(work.shutdownGraceMs);
          await dispatcher.close(Math.min(work.shutdownGraceMs, webhooks.timeoutMs));
          await httpClosed;
          await admin!.close();
          await services.close();
        })()),
    };
  } catch (err) {
    sweeper?.stop();
    http?.close();
    await admin?.close();
    await runner.close(0);
    await dispatcher.close(0);
    await services.close();
    throw err;
  }
}
