import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { startService } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';

/**
 * A local install sets fetch.allowPrivateAddresses to read images on its own network. A URL
 * there that redirects to a cloud metadata address is still refused at that hop, with its
 * reason in the item's error; only fetch.allowMetadataAddresses lets the hop be tried.
 */
async function imageServer(t: TestContext): Promise<(path: string) => string> {
  const image = await makeImage();
  const hops: Record<string, string> = {
    '/to-aws': 'http://169.254.169.254/',
    '/to-aws-ipv6': 'http://[fd00:ec2::254]/',
    '/to-alibaba': 'http://100.100.100.200/',
  };
  const server = createServer((req, res) => {
    const location = hops[req.url ?? ''];
    if (location) {
      res.statusCode = 302;
      res.setHeader('location', location);
      return res.end();
    }
    res.end(image);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
}

const rate = (h: Awaited<ReturnType<typeof startService>>, urls: string[]) =>
  h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls } });

test('with fetch.allowPrivateAddresses, an image URL redirecting to a cloud metadata address fails FETCH_FAILED saying why, uncharged', async (t) => {
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true, timeoutMs: 2000 } } });
  const url = await imageServer(t);
  const res = await rate(h, [url('/a.png'), url('/to-aws'), url('/to-aws-ipv6')]);
  assert.equal(res.status, 200, res.text);
  const [local, aws, ipv6] = res.json.data.results;
  assert.equal(local.status, 'success', 'the loopback server itself is allowed');
  const refusal = (address: string) =>
    `cannot fetch the image: ${address} is a cloud metadata address, which user URLs may not reach, whatever fetch.allowPrivateAddresses says (unless fetch.allowMetadataAddresses is true)`;
  assert.deepEqual(aws, {
    status: 'failed',
    url: url('/to-aws'),
    error: { code: 'FETCH_FAILED', message: refusal('169.254.169.254') },
  });
  assert.deepEqual(ipv6, {
    status: 'failed',
    url: url('/to-aws-ipv6'),
    error: { code: 'FETCH_FAILED', message: refusal('fd00:ec2::254') },
  });
  assert.equal(res.json.data.task.cost, '0.0002', 'only the URL that was read is charged');
});

test('fetch.allowMetadataAddresses lets the hop be tried: it then fails as an unreachable host, not as a refusal', async (t) => {
  const h = await startService(t, {
    config: { fetch: { allowPrivateAddresses: true, allowMetadataAddresses: true, timeoutMs: 500 } },
  });
  const url = await imageServer(t);
  // Not 169.254.169.254, which may answer on the machine running the tests: nothing is asked of a metadata service
  // here.
  const res = await rate(h, [url('/a.png'), url('/to-alibaba'), url('/to-aws-ipv6')]);
  assert.equal(res.status, 200, res.text);
  for (const item of res.json.data.results.slice(1)) {
    // Off that cloud nothing answers there; on it, whatever answers is not an image.
    assert.equal(item.status, 'failed', item.url);
    assert.doesNotMatch(item.error.message, /cloud metadata address|may not reach/, item.url);
  }
});
