import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { type TestContext, test } from 'node:test';
import { eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

/**
 * A URL the SSRF guard refuses is the user's setting, not an upstream outage: a destination test
 * answers 400 VALIDATION_ERROR, and every refusal names the setting that would allow the address.
 * No message a client reads carries an internal class name or a raw system error.
 */
const INTERNALS = /SafeFetchError|StorageError|TypeError|\bError:|getaddrinfo|\bat \S+ \(/;

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function destination(h: Harness, name: string, provider: 'http' | 's3', where: string) {
  const config =
    provider === 'http'
      ? { urlTemplate: `${where}/{key}` }
      : {
          bucket: 'images',
          endpoint: where,
          forcePathStyle: true,
          accessKeyId: 'AKIDEXAMPLE',
          secretAccessKey: 'secret-value-1234',
        };
  const created = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name, provider: { id: provider }, config },
  });
  assert.equal(created.status, 201, created.text);
  return created.json.data.id as string;
}

async function storage(t: TestContext) {
  const receiver = await startReceiver(t, [201]);
  const port = new URL(receiver.url()).port;
  // The same loopback storage as an IP literal (checked before connecting) and as a name (checked at lookup).
  return { receiver, where: [`http://127.0.0.1:${port}`, `http://localhost:${port}`] };
}

test('a destination test refused by the SSRF guard is 400 VALIDATION_ERROR naming destinations.allowPrivateAddresses, for HTTP and S3', async (t) => {
  const { receiver, where } = await storage(t);
  const h = await startService(t);
  for (const provider of ['http', 's3'] as const) {
    for (const [index, base] of where.entries()) {
      const id = await destination(h, `${provider}-${index}`, provider, base);
      const res = await h.request('POST', `/destinations/${id}/test`, { auth: h.token });
      assert.equal(res.status, 400, `${provider} ${base}: ${res.text}`);
      assert.deepEqual(Object.keys(res.json), ['code', 'message']);
      assert.equal(res.json.code, 'VALIDATION_ERROR');
      assert.match(res.json.message, /may not reach/, `${provider} ${base}`);
      assert.match(res.json.message, /destinations\.allowPrivateAddresses/, `${provider} ${base}`);
      assert.doesNotMatch(res.json.message, INTERNALS, `${provider} ${base}`);
    }
  }
  assert.equal(receiver.received.length, 0, 'nothing reached the storage');
});

test("a delivery refused by the guard says so in the image's destination error, naming the setting", async (t) => {
  const { receiver, where } = await storage(t);
  const h = await startService(t);
  for (const [index, base] of where.entries()) await destination(h, `s3-${index}`, 's3', base);
  for (const name of ['s3-0', 's3-1']) {
    const created = await h.request('POST', '/image/generate', {
      auth: h.apiKey,
      body: { prompt: 'a lighthouse', destination: name },
    });
    const task = await waitForTask(h, created.json.data.taskId);
    const { error } = task.result.images[0].destination;
    assert.equal(error.code, 'PROVIDER_ERROR');
    assert.match(error.message, /destinations\.allowPrivateAddresses/, name);
    assert.doesNotMatch(JSON.stringify(error), INTERNALS, name);
  }
  assert.equal(receiver.received.length, 0);
});

test('a storage that cannot be reached stays 502 DESTINATION_TEST_FAILED, in words without internal names', async (t) => {
  const port = await closedPort();
  const h = await startService(t, { config: { destinations: { allowPrivateAddresses: true } } });
  for (const provider of ['http', 's3'] as const) {
    const id = await destination(h, provider, provider, `http://127.0.0.1:${port}`);
    const res = await h.request('POST', `/destinations/${id}/test`, { auth: h.token });
    assert.equal(res.status, 502, `${provider}: ${res.text}`);
    assert.equal(res.json.code, 'DESTINATION_TEST_FAILED');
    assert.match(res.json.message, /ECONNREFUSED/, provider);
    assert.doesNotMatch(res.json.message, INTERNALS, provider);
  }
});

test('an item fetch refused for a private address names fetch.allowPrivateAddresses in its error', async (t) => {
  const { where } = await storage(t);
  const h = await startService(t);
  const urls = where.map((base) => `${base}/a.png`);
  const rated = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls, sync: false },
  });
  const rating = await waitForTask(h, rated.json.data.task.id);
  const record = await h.server.services.store.tasks.get(rating.id);
  for (const [index, item] of record!.items.entries()) {
    assert.equal(item.error!.code, 'FETCH_FAILED');
    assert.match(item.error!.message!, /fetch\.allowPrivateAddresses/, urls[index]);
  }
  const generated = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'p', inputs: [urls[1]] },
  });
  const task = await waitForTask(h, generated.json.data.taskId);
  assert.equal(task.errors[0].code, 'INVALID_INPUT');
  assert.match(task.errors[0].message, /fetch\.allowPrivateAddresses/);
});

test('a webhook delivery refused by the guard names webhooks.allowPrivateAddresses', async (t) => {
  const { receiver } = await storage(t);
  // Made while allowed (a loopback URL is refused when given otherwise), then turned off by a reload: the delivery
  // meets the guard.
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0] } } });
  const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url('/hook') } });
  const { services } = h.server;
  await services.reload({
    ...services.config.current(),
    webhooks: { ...services.config.current().webhooks, allowPrivateAddresses: false },
  });
  const { id } = created.json.data;
  assert.equal((await h.request('POST', `/webhook/${id}/test`, { auth: h.token })).status, 202);
  const deliveries = () =>
    h.request('GET', `/webhook/${id}/deliveries`, { auth: h.token }).then((res) => res.json.data);
  await eventually(async () => (await deliveries())[0]?.status === 'failed');
  const [delivery] = await deliveries();
  assert.match(delivery.attempts[0].error, /webhooks\.allowPrivateAddresses/);
});
