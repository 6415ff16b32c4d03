import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ProviderHttpError, providerRequest } from '../../../src/net/provider-http.js';

test("provider requests leave no listener on the caller's signal, answered or timed out", async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const caller = new AbortController();

  for (let i = 0; i < 20; i++)
    assert.deepEqual(
      (await providerRequest(`${base}/fast`, { method: 'GET', timeoutMs: 5000, signal: caller.signal })).json(),
      { ok: true },
    );
  await assert.rejects(
    providerRequest(`${base}/slow`, { method: 'GET', timeoutMs: 50, signal: caller.signal }),
    (err: unknown) => err instanceof ProviderHttpError && /no answer within 50 ms/.test(err.message),
  );
  assert.equal(getEventListeners(caller.signal, 'abort').length, 0);

  const cancelled = providerRequest(`${base}/slow`, { method: 'GET', timeoutMs: 5000, signal: caller.signal });
  caller.abort();
  await assert.rejects(
    cancelled,
    (err: unknown) => err instanceof ProviderHttpError && /cannot reach the provider/.test(err.message),
  );
});
