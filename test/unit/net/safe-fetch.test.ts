import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createSafeFetcher, SafeFetchError } from '../../../src/net/safe-fetch.js';

async function server(
  t: TestContext,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<string> {
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
  for (const target of [
    'file:///etc/passwd',
    'ftp://example.com/a.png',
    'gopher://x/',
    'data:image/png;base64,AAAA',
    'http://user:pass@example.com/',
    'not a url',
  ]) {
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
  await assert.rejects(
    fetcher.fetch(`${allowed}/go`),
    (err: unknown) => err instanceof SafeFetchError && err.reason === 'refused' && /127\.0\.0\.2/.test(err.message),
  );
});

test('follows at most maxRedirects redirects', async (t) => {
  const url = await server(t, (req, res) => {
    res.statusCode = 301;
    res.setHeader('location', `/hop${Number(req.url!.slice(4) || 0) + 1}`);
    res.end();
  });
  await assert.rejects(
    createSafeFetcher({ ...base, allowPrivateAddresses: true }).fetch(`${url}/hop0`),
    /more than 3 redirects/,
  );
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
  await assert.rejects(
    fetcher.fetch(`${url}/missing`),
    (err: unknown) => err instanceof SafeFetchError && err.reason === 'status' && /404/.test(err.message),
  );
  await assert.rejects(
    createSafeFetcher({ ...base, allowPrivateAddresses: true }).fetch('http://127.0.0.1:1/'),
    refusedWith('unreachable'),
  );
});

test('IPv6 URL hosts that carry a forbidden IPv4 address are refused before connecting, by fetch, send and checkHost', async (t) => {
  // Nothing listens there: without the guard these would fail as unreachable or time out, not as refused.
  const fetcher = createSafeFetcher({ ...base, timeoutMs: 500 });
  const post = { method: 'POST', headers: {}, body: '{}' } as const;
  for (const host of [
    '[::127.0.0.1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::a9fe:a9fe]',
    '[64:ff9b:1:7f00:0:100::]',
    '[64:ff9b:1::7f00:1]',
    '[2002:7f00:1::]',
    '[2001:0:808:808::80ff:fffe]',
  ]) {
    const target = `http://${host}:8080/a.png`;
    await t.test(target, async () => {
      await assert.rejects(fetcher.fetch(target), refusedWith('refused'));
      await assert.rejects(fetcher.send(target, post), refusedWith('refused'));
      assert.throws(() => fetcher.checkHost(target), refusedWith('refused'));
    });
  }
});

/** Where the redirects below lead: cloud metadata addresses, as IPv4, IPv6 and IPv4 inside IPv6. */
const METADATA_HOPS: [path: string, location: string, address: string][] = [
  ['/aws', 'http://169.254.169.254/', '169.254.169.254'],
  ['/ecs', 'http://169.254.170.2/', '169.254.170.2'],
  ['/alibaba', 'http://100.100.100.200/', '100.100.100.200'],
  ['/aws-ipv6', 'http://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ['/mapped', 'http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
];

/**
 * A loopback image server that redirects each path of METADATA_HOPS to its metadata address, counting the requests it
 * got.
 */
async function redirectingToMetadata(t: TestContext) {
  const seen: string[] = [];
  const url = await server(t, (req, res) => {
    seen.push(req.url!);
    res.statusCode = 302;
    res.setHeader('location', METADATA_HOPS.find(([path]) => path === req.url)?.[1] ?? '/');
    res.end();
  });
  return { url, seen };
}

test('with allowPrivateAddresses, a redirect from a loopback image server to a cloud metadata address is still refused, naming both settings', async (t) => {
  const { url, seen } = await redirectingToMetadata(t);
  const fetcher = createSafeFetcher({
    ...base,
    allowPrivateAddresses: true,
    allowMetadataAddresses: false,
    privateAddressesSetting: 'fetch.allowPrivateAddresses',
    timeoutMs: 1000,
  });
  for (const [path, , address] of METADATA_HOPS) {
    await t.test(path, async () => {
      const started = Date.now();
      await assert.rejects(fetcher.fetch(`${url}${path}`), (err: unknown) => {
        assert.ok(err instanceof SafeFetchError, String(err));
        assert.equal(err.reason, 'refused', err.message);
        assert.equal(
          err.message,
          `${address} is a cloud metadata address, which user URLs may not reach, whatever fetch.allowPrivateAddresses says (unless fetch.allowMetadataAddresses is true)`,
        );
        return true;
      });
      assert.ok(Date.now() - started < 500, 'refused before any connection is tried, not timed out');
    });
  }
  assert.deepEqual(
    seen,
    METADATA_HOPS.map(([path]) => path),
    'the loopback server itself was allowed: the hop was refused',
  );
  // Given directly, too, and by checkHost and send.
  assert.throws(() => fetcher.checkHost('http://[fd00:ec2::254]/'), refusedWith('refused'));
  await assert.rejects(
    fetcher.send('http://169.254.169.254/', { method: 'PUT', headers: {}, body: 'x' }),
    /cloud metadata address/,
  );
});

test('allowMetadataAddresses alone lets a redirect reach a metadata address: it then fails as any unreachable host does', async (t) => {
  const { url } = await redirectingToMetadata(t);
  const open = createSafeFetcher({
    ...base,
    allowPrivateAddresses: true,
    allowMetadataAddresses: true,
    privateAddressesSetting: 'fetch.allowPrivateAddresses',
    timeoutMs: 300,
  });
  // Not 169.254.169.254, which may answer on the machine running the tests: nothing is asked of a metadata service
  // here.
  for (const path of ['/alibaba', '/aws-ipv6']) {
    // Nothing answers there off that cloud (an answer is not a refusal either).
    const outcome = await open.fetch(`${url}${path}`).then(
      () => 'answered',
      (err: SafeFetchError) => err.reason,
    );
    assert.notEqual(outcome, 'refused', path);
  }
  // Not with private addresses refused: the switch opens metadata addresses only.
  const onlyMetadata = createSafeFetcher({
    ...base,
    allowMetadataAddresses: true,
    privateAddressesSetting: 'fetch.allowPrivateAddresses',
  });
  await assert.rejects(
    onlyMetadata.fetch(`${url}/aws`),
    (err: unknown) =>
      err instanceof SafeFetchError &&
      err.reason === 'refused' &&
      /^127\.0\.0\.1 is an address user URLs may not reach \(unless fetch\.allowPrivateAddresses is true\)$/.test(
        err.message,
      ),
  );
  await assert.rejects(onlyMetadata.fetch('http://10.0.0.1/'), refusedWith('refused'));
});

test('a fetcher without the switch (webhook deliveries, destinations) never reaches a metadata address, and names no switch for it', async () => {
  const deliveries = createSafeFetcher({
    ...base,
    allowPrivateAddresses: true,
    privateAddressesSetting: 'webhooks.allowPrivateAddresses',
    maxRedirects: 0,
  });
  const post = { method: 'POST', headers: {}, body: '{}' } as const;
  await assert.rejects(deliveries.send('http://169.254.169.254/hook', post), (err: unknown) => {
    assert.ok(err instanceof SafeFetchError);
    assert.equal(
      err.message,
      '169.254.169.254 is a cloud metadata address, which user URLs may not reach, whatever webhooks.allowPrivateAddresses says',
    );
    return true;
  });
  await assert.rejects(deliveries.send('http://[fd00:ec2::254]/hook', post), refusedWith('refused'));
});
