import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface StalledRequest {
  method: string;
  path: string;
  /** Resolves when the request's connection closes (the client gave up on it). */
  closed: Promise<void>;
}

export interface StallingServer {
  url: (path: string) => string;
  requests: StalledRequest[];
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  arrived(count: number, timeoutMs?: number): Promise<StalledRequest[]>;
}

/**
 * A loopback server that answers nothing for a minute (far longer than any test): each request
 * is recorded as it arrives, with a promise of its connection's close, so a test can wait for
 * a client to abort it.
 */
export async function startStallingServer(t: TestContext): Promise<StallingServer> {
  const requests: StalledRequest[] = [];
  const arrivals = new EventEmitter();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
    // Bodies are read (and dropped) so that an upload reaches the server whole and only the answer stalls.
    req.resume();
    const timer = setTimeout(() => res.end(), 60_000);
    timers.add(timer);
    void closed.then(() => {
      clearTimeout(timer);
      timers.delete(timer);
    });
    requests.push({ method: req.method ?? '', path: req.url ?? '', closed });
    arrivals.emit('request');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    requests,
    async arrived(count, timeoutMs = 10_000) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        while (requests.length < count) await once(arrivals, 'request', { signal });
      } catch {
        throw new Error(`${requests.length} of ${count} requests arrived`);
      }
      return requests.slice(0, count);
    },
  };
}

/** Resolves once every request's connection has closed; rejects after `timeoutMs` naming those still open. */
export async function allClosed(requests: StalledRequest[], timeoutMs = 5000): Promise<void> {
  const open = new Set(requests);
  for (const request of requests) void request.closed.then(() => open.delete(request));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`still open after ${timeoutMs} ms: ${[...open].map((r) => `${r.method} ${r.path}`).join(', ')}`),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([Promise.all(requests.map((request) => request.closed)), late]);
  } finally {
    clearTimeout(timer);
  }
}
