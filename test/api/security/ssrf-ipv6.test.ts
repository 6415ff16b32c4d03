import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';

/**
 * IPv6 spellings of 127.0.0.1 that the SSRF guard must see through, on every channel that
 * takes a user URL. Nothing listens on them, so a missing check would show up as a connection
 * failure (or a timeout) instead of the guard's "may not reach": the tests assert that message.
 */
const LOOPBACK_IN_IPV6 = [
  '[::127.0.0.1]', // IPv4-compatible; the URL parser turns it into [::7f00:1]
  '[64:ff9b:1:7f00:0:100::]', // NAT64 local-use prefix, RFC 6052 /48 layout
  '[64:ff9b:1::7f00:1]', // NAT64 local-use prefix with the address in the last 32 bits
  '[2002:7f00:1::]', // 6to4
];

const REFUSED = /may not reach/;

// Short deadlines, and one webhook attempt, so that a regression fails fast instead of hanging; private addresses stay
// refused (the default).
const CONFIG = {
  fetch: { timeoutMs: 2000 },
  webhooks: { retryScheduleMs: [0], timeoutMs: 2000 },
  destinations: { timeoutMs: 2000 },
};

const imageUrl = (host: string) => `http://${host}/a.png`;

/** Why each item of a task failed, as the store keeps it (the API shows only the codes per URL). */
async function itemErrors(h: Harness, taskId: string) {
  const record = await h.server.services.store.tasks.get(taskId);
  return record!.items.map((item) => item.error);
}

test('generate: an input on an IPv6 spelling of loopback fails the task with INVALID_INPUT', async (t) => {
  const h = await startService(t, { config: CONFIG });
  for (const host of LOOPBACK_IN_IPV6) {
    const created = await h.request('POST', '/image/generate', {
      auth: h.apiKey,
      body: { prompt: 'p', inputs: [imageUrl(host)] },
    });
    assert.equal(created.status, 201, created.text);
    const task = await waitForTask(h, created.json.data.taskId);
    assert.equal(task.status, 'failed', host);
    assert.equal(task.errors[0].code, 'INVALID_INPUT', host);
    assert.match(task.errors[0].message, REFUSED, host);
  }
});

for (const [path, body] of [
  ['/image/rate', { mode: 'nsfw_sfw' }],
  ['/image/alt', {}],
] as const) {
  test(`${path}: every IPv6 spelling of loopback fails with FETCH_FAILED, refused by the guard`, async (t) => {
    const h = await startService(t, { config: CONFIG });
    const urls = LOOPBACK_IN_IPV6.map(imageUrl);
    const created = await h.request('POST', path, { auth: h.apiKey, body: { ...body, urls, sync: false } });
    assert.equal(created.status, 202, created.text);
    const task = await waitForTask(h, created.json.data.task.id);
    assert.equal(task.status, 'failed');
    assert.deepEqual(
      task.result.results.map((result: { status: string; url: string; error: { code: string } }) => [
        result.status,
        result.url,
        result.error.code,
      ]),
      urls.map((url) => ['failed', url, 'FETCH_FAILED']),
    );
    for (const [index, error] of (await itemErrors(h, task.id)).entries())
      assert.match(error!.message!, REFUSED, urls[index]);
    for (const [index, result] of task.result.results.entries())
      assert.match(result.error.message, REFUSED, `the result says why: ${urls[index]}`);
  });
}

test('remove-background: a URL on an IPv6 spelling of loopback fails the task with INVALID_INPUT', async (t) => {
  const h = await startService(t, { config: CONFIG });
  for (const host of LOOPBACK_IN_IPV6) {
    const created = await h.request('POST', '/image/remove-background', {
      auth: h.apiKey,
      body: { url: imageUrl(host) },
    });
    assert.equal(created.status, 201, created.text);
    const task = await waitForTask(h, created.json.data.taskId);
    assert.equal(task.status, 'failed', host);
    assert.equal(task.errors[0].code, 'INVALID_INPUT', host);
    assert.equal(task.result, null);
    const [error] = await itemErrors(h, task.id);
    assert.match(error!.message!, REFUSED, host);
  }
});

test('webhooks: an endpoint on an IPv6 spelling of loopback is refused when given; one made while allowed gets no request, failing at the guard', async (t) => {
  const h = await startService(t, { config: CONFIG });
  for (const host of LOOPBACK_IN_IPV6) {
    const refused = await h.request('POST', '/webhook', { auth: h.token, body: { url: `http://${host}/hook` } });
    assert.equal(refused.status, 400, `${host}: ${refused.text}`);
    assert.equal(refused.json.code, 'VALIDATION_ERROR', host);
    assert.match(refused.json.message, /may not reach.*webhooks\.allowPrivateAddresses/, host);
  }
  // Made while private addresses were allowed, then turned off by a reload: each delivery still meets the guard.
  const { services } = h.server;
  const reloadAllowing = (allowPrivateAddresses: boolean) =>
    services.reload({
      ...services.config.current(),
      webhooks: { ...services.config.current().webhooks, allowPrivateAddresses },
    });
  await reloadAllowing(true);
  const made: [string, string][] = [];
  for (const host of LOOPBACK_IN_IPV6) {
    const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: `http://${host}/hook` } });
    // A spelling the guard reads as a cloud metadata address stays refused, whatever the setting.
    if (created.status === 400 && /whatever webhooks\.allowPrivateAddresses says/.test(created.json.message)) continue;
    assert.equal(created.status, 201, created.text);
    made.push([host, created.json.data.id]);
  }
  assert.ok(made.length > 0);
  await reloadAllowing(false);
  for (const [host, id] of made) {
    assert.equal((await h.request('POST', `/webhook/${id}/test`, { auth: h.token })).status, 202);
    const deliveries = () =>
      h.request('GET', `/webhook/${id}/deliveries`, { auth: h.token }).then((res) => res.json.data);
    await eventually(async () => (await deliveries())[0]?.status === 'failed');
    const [delivery] = await deliveries();
    assert.equal(delivery.attempts.length, 1, host);
    assert.equal(delivery.attempts[0].status, null, `${host}: no answer, nothing was sent`);
    assert.match(delivery.attempts[0].error, REFUSED, host);
  }
});

test('destinations: an HTTP URL or S3 endpoint on an IPv6 spelling of loopback fails its test with 400 VALIDATION_ERROR', async (t) => {
  const h = await startService(t, { config: CONFIG });
  for (const [index, host] of LOOPBACK_IN_IPV6.entries()) {
    for (const [provider, config] of [
      ['http', { urlTemplate: `http://${host}/{key}` }],
      [
        's3',
        {
          bucket: 'images',
          endpoint: `http://${host}:9000`,
          forcePathStyle: true,
          accessKeyId: 'AKID',
          secretAccessKey: 'SECRET',
        },
      ],
    ] as const) {
      const created = await h.request('POST', '/destinations', {
        auth: h.token,
        body: { name: `${provider}-${index}`, provider: { id: provider }, config },
      });
      assert.equal(created.status, 201, created.text);
      const tested = await h.request('POST', `/destinations/${created.json.data.id}/test`, { auth: h.token });
      assert.equal(tested.status, 400, `${provider} ${host}`);
      assert.equal(tested.json.code, 'VALIDATION_ERROR', `${provider} ${host}`);
      assert.match(tested.json.message, REFUSED, `${provider} ${host}`);
    }
  }
});
