import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApi } from '../api/app.js';
import { listenAdminSocket } from './admin-socket.js';
import { openServices, type ServiceOptions, type Services } from './services.js';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** Stops accepting, finishes open requests, closes the store (flushes the journal). */
  close(): Promise<void>;
}

const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Starts the whole service on the config's host and port (0 = any free port). */
export async function startServer(options: ServiceOptions): Promise<RunningServer> {
  const services = await openServices(options);
  let http: ServerType | undefined;
  let admin: { close(): Promise<void> } | undefined;
  try {
    const api = createApi(services);
    const { host, port } = options.config.server;
    const address = await new Promise<AddressInfo>((resolve, reject) => {
      http = serve({ fetch: api.fetch, hostname: host, port }, (info) => resolve(info));
      http.once('error', reject);
    });
    admin = await listenAdminSocket(services, services.layout.adminSocket);
    const url = `http://${urlHost(host)}:${address.port}`;
    let closing: Promise<void> | undefined;
    return {
      url,
      port: address.port,
      services,
      close: () =>
        (closing ??= (async () => {
          await new Promise<void>((resolve) => {
            http!.close(() => resolve());
            if ('closeIdleConnections' in http!) http.closeIdleConnections();
          });
          await admin!.close();
          await services.close();
        })()),
    };
  } catch (err) {
    http?.close();
    await admin?.close();
    await services.close();
    throw err;
  }
}
