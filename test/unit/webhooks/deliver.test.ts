import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createSafeFetcher, SafeFetchError } from '../../../src/net/safe-fetch.js';
import { deliverWebhook } from '../../../src/webhooks/deliver.js';

async function receiver(
  t: TestContext,
  handler: (req: IncomingMessage, res: ServerResponse, requestsOnSocket: number) => void,
) {
  const counts = new WeakMap<Socket, number>();
  let connections = 0;
  let requests = 0;
  const srv = createServer((req, res) => {
    requests += 1;
    const n = (counts.get(req.socket) ?? 0) + 1;
    counts.set(req.socket, n);
    req.resume();
    req.on('end', () => handler(req, res, n));
  });
  srv.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    srv.closeAllConnections();
    return new Promise((resolve) => srv.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`,
    connections: () => connections,
    requests: () => requests,
  };
}

const options = { timeoutMs: 2000, allowPrivateAddresses: true, now: Date.now };
const message = (i: number) => ({ id: `evt_${i}`, body: JSON.stringify({ i }) });

test('deliveries to one endpoint share kept-alive connections', async (t) => {
  const r = await receiver(t, (_req, res) => res.writeHead(204).end());
  for (let i = 0; i < 20; i++)
    assert.equal((await deliverWebhook({ url: r.url, secret: 'whsec_c2VjcmV0' }, message(i), options)).status, 204);
  await Promise.all(Array.from({ length: 20 }, (_, i) => deliverWebhook({ url: r.url }, message(i), options)));
  assert.equal(r.requests(), 40);
  assert.ok(r.connections() <= 20, `20 in flight at most need 20 connections (opened ${r.connections()})`);
  assert.ok(r.connections() < 40);
});

test('a kept-alive connection the server resets is sent again once, on a new connection', async (t) => {
  // The second request on any connection is reset unanswered, as a server closing an idle connection would.
  const r = await receiver(t, (req, res, n) => (n >= 2 ? req.socket.resetAndDestroy() : res.writeHead(200).end('ok')));
  assert.equal((await deliverWebhook({ url: r.url }, message(1), options)).status, 200);
  const again = await deliverWebhook({ url: r.url }, message(2), options);
  assert.equal(again.status, 200, again.error);
  assert.equal(r.requests(), 3);
  assert.equal(r.connections(), 2);
});

test('a keep-alive fetcher still checks an IP-literal host before every request, pooled connection or not', async (t) => {
  const r = await receiver(t, (_req, res) => res.writeHead(200).end('ok'));
  let blocked = false;
  const fetcher = createSafeFetcher({
    allowPrivateAddresses: false,
    isBlocked: () => blocked,
    maxBytes: 1024,
    timeoutMs: 2000,
    maxRedirects: 0,
    keepAlive: true,
  });
  const send = () => fetcher.send(r.url, { method: 'POST', headers: {}, body: '{}' });
  assert.equal((await send()).status, 200);
  blocked = true;
  await assert.rejects(send(), (err) => err instanceof SafeFetchError && err.reason === 'refused');
  assert.equal(r.requests(), 1, 'the refused request never went out on the pooled connection');
});

test('a keep-alive fetcher still refuses a host name that resolves to a blocked address', async (t) => {
  const r = await receiver(t, (_req, res) => res.writeHead(200).end('ok'));
  const fetcher = createSafeFetcher({
    allowPrivateAddresses: false,
    maxBytes: 1024,
    timeoutMs: 2000,
    maxRedirects: 0,
    keepAlive: true,
  });
  await assert.rejects(
    fetcher.send(r.url.replace('127.0.0.1', 'localhost'), { method: 'POST', headers: {}, body: '{}' }),
    (err) => err instanceof SafeFetchError && err.reason === 'refused',
  );
  assert.equal(r.requests(), 0);
});

test('a receiver that answers at once and then streams its body past the deadline is told apart from one that never answered', async (t) => {
  const r = await receiver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('o');
    // The rest of the body never comes before the deadline.
  });
  const result = await deliverWebhook({ url: r.url }, message(1), { ...options, timeoutMs: 300 });
  assert.equal(result.status, null);
  assert.match(result.error!, /answered HTTP 200, but its body did not finish within 0\.3 s/);
  assert.doesNotMatch(result.error!, /no answer/);
});
