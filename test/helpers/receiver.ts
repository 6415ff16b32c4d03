import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: (path?: string) => string;
  received: Received[];
  /**
   * Statuses to answer, in order; the last one repeats. `'hang'` never answers; `'trickle'` answers 200 and then never
   * finishes its body.
   */
  answers: Array<number | 'hang' | 'trickle'>;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real webhook receiver on loopback: records every request, answers as scripted. */
export async function startReceiver(
  t: TestContext | null,
  answers: Array<number | 'hang' | 'trickle'> = [200],
): Promise<Receiver> {
  const received: Received[] = [];
  const arrivals = new EventEmitter();
  let served = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        at: Date.now(),
      });
      arrivals.emit('request');
      const answer = receiver.answers[Math.min(served++, receiver.answers.length - 1)];
      if (answer === 'hang') return;
      if (answer === 'trickle') return void res.writeHead(200, { 'content-type': 'text/plain' }).write('o');
      res.statusCode = answer;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiver: Receiver = {
    url: (path = '/hook') => `${base}${path}`,
    received,
    answers,
    async waitFor(count, timeoutMs = 5000) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        while (received.length < count) await once(arrivals, 'request', { signal });
      } catch {
        throw new Error(`the receiver got ${received.length} of ${count} requests`);
      }
      return received;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  t?.after(() => receiver.close());
  return receiver;
}
