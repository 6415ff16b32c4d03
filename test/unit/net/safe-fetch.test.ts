import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createSafeFetcher, SafeFetchError } from '../../../src/net/safe-fetch.js';

async function server(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<string> {
  const srv = createServer(handler);
  await new Promise<void>((resolve) => srv.listen(0, host, resolve));
  t.after(() => {
    srv.closeAllConnections();
    return new Promise((resolve) => srv.close(resolve));
  });
  return `http://${host}:${(srv.address() as AddressInfo).port}`;
}

const base = { allowPrivateAddresses: false, maxBytes: 1024, timeoutMs: 2000, maxRedirects: 3 };
const refusedWith = (reason: string) => (err: unknown) => err instanceof SafeFetchError && err.reason === reason;

test('refuses URLs that reach loopback, private, link-local and metadata addresses, however written', async (t) => {
  const url = await server(t, (_req, res) => res.end('secret'));
  const port = new URL(url).port;
  const fetcher = createSafeFetcher(base);
  for (const target of [
    url,
    `http://localhost:${port}/`,
    `http://[::1]:${port}/`,
    `http://2130706433:${port}/`, // 127.0.0.1 as one decimal number
    `http://0x7f.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://172.16.0.1/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
  ]) {
    await t.test(target, () => assert.rejects(fetcher.fetch(target), refusedWith('refused')));
  }
});

test('refuses other schemes, credentials in the URL and junk', async () => {
  const fetcher = createSafeFetcher(base);
  for (const target of ['file:///etc/passwd', 'ftp://example.com/a.png', 'gopher://x/', 'data:image/png;base64,AAAA', 'http://user:pass@example.com/', 'not a url']) {
    await assert.rejects(fetcher.fetch(target), refusedWith('refused'), target);
  }
});

test('fetches loopback only when allowPrivateAddresses is set', async (t) => {
  const url = await server(t, (_req, res) => {
    res.setHeader('content-type', 'image/png');
    res.end('pixels');
  });
  const fetched = await createSafeFetcher({ ...base, allowPrivateAddresses: true }).fetch(`${url}/a.png`);
  assert.equal(fetched.data.toString(), 'pixels');
  assert.equal(fetched.contentType, 'image/png');
});

test('re-checks every redirect: a hop to a forbidden address is refused', async (t) => {
  const forbidden = await server(t, (_req, res) => res.end('secret'), '127.0.0.2');
  const allowed = await server(t, (req, res) => {
    res.statusCode = 302;
    res.setHeader('location', req.url === '/relative' ? '/final' : `${forbidden}/x`);
    res.end();
  });
  // Treat 127.0.0.2 as the forbidden network and 127.0.0.1 as the public one.
  const fetcher = createSafeFetcher({ ...base, isBlocked: (address) => address === '127.0.0.2' });
  await assert.rejects(fetcher.fetch(`${allowed}/go`), (err: unknown) => err instanceof SafeFetchError && err.reason === 'refused' && /127\.0\.0\.2/.test(err.message));
});

test('follows at most maxRedirects redirects', async (t) => {
  const url = await server(t, (req, res) => {
    res.statusCode = 301;
    res.setHeader('location', `/hop${Number(req.url!.slice(4) || 0) + 1}`);
    res.end();
  });
  await assert.rejects(createSafeFetcher({ ...base, allowPrivateAddresses: true }).fetch(`${url}/hop0`), /more than 3 redirects/);
});

test('refuses bodies past the size cap, declared or streamed', async (t) => {
  const url = await server(t, (req, res) => {
    if (req.url === '/declared') {
      res.setHeader('content-length', '5000');
      res.end(Buffer.alloc(5000));
    } else {
      res.write(Buffer.alloc(800));
      setTimeout(() => res.end(Buffer.alloc(800)), 10);
    }
  });
  const fetcher = createSafeFetcher({ ...base, allowPrivateAddresses: true });
  await assert.rejects(fetcher.fetch(`${url}/declared`), refusedWith('too_large'));
  await assert.rejects(fetcher.fetch(`${url}/chunked`), refusedWith('too_large'));
});

test('gives up at the deadline, refuses compressed bodies and reports error statuses', async (t) => {
  const url = await server(t, (req, res) => {
    if (req.url === '/slow') return; // never answers
    if (req.url === '/gzip') {
      res.setHeader('content-encoding', 'gzip');
      return res.end(gzipSync(Buffer.alloc(100_000)));
    }
    res.statusCode = 404;
    res.end();
  });
  const fetcher = createSafeFetcher({ ...base, allowPrivateAddresses: true, timeoutMs: 200 });
  const started = Date.now();
  await assert.rejects(fetcher.fetch(`${url}/slow`), refusedWith('timeout'));
  assert.ok(Date.now() - started < 1500);
  await assert.rejects(fetcher.fetch(`${url}/gzip`), refusedWith('encoding'));
  await assert.rejects(fetcher.fetch(`${url}/missing`), (err: unknown) => err instanceof SafeFetchError && err.reason === 'status' && /404/.test(err.message));
  await assert.rejects(createSafeFetcher({ ...base, allowPrivateAddresses: true }).fetch('http://127.0.0.1:1/'), refusedWith('unreachable'));
});

test('IPv6 URL hosts that carry a forbidden IPv4 address are refused before connecting, by fetch, send and checkHost', async (t) => {
  // Nothing listens there: without the guard these would fail as unreachable or time out, not as refused.
  const fetcher = createSafeFetcher({ ...base, timeoutMs: 500 });
  const post = { method: 'POST', headers: {}, body: '{}' } as const;
  for (const host of ['[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b:1:7f00:0:100::]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::]', '[2001:0:808:808::80ff:fffe]']) {
    const target = `http://${host}:8080/a.png`;
    await t.test(target, async () => {
      await assert.rejects(fetcher.fetch(target), refusedWith('refused'));
      await assert.rejects(fetcher.send(target, post), refusedWith('refused'));
      assert.throws(() => fetcher.checkHost(target), refusedWith('refused'));
    });
  }
});
