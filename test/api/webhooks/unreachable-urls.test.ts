import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../../helpers/console.js';
import { accountOf, eventually, startService, waitForTask } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

/**
 * A webhook URL deliveries could never reach under the config in force (a loopback, private,
 * link-local or metadata address while webhooks.allowPrivateAddresses is false) is refused when
 * given, 400 VALIDATION_ERROR naming the setting, with nothing created: not accepted, and then
 * failed at every delivery for days.
 */
const NEVER = [
  'http://127.0.0.1:9911/hook',
  'http://localhost:3000/hook',
  'http://app.localhost/hook',
  'http://[::1]:8080/hook',
  'http://10.1.2.3/hook',
  'http://192.168.1.20/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://[fd00:ec2::254]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://0x7f000001/hook',
];

const refusedNamingTheSetting = (res: { status: number; json: any; text: string }, label: string) => {
  assert.equal(res.status, 400, `${label}: ${res.text}`);
  assert.deepEqual(Object.keys(res.json), ['code', 'message'], label);
  assert.equal(res.json.code, 'VALIDATION_ERROR', label);
  assert.match(res.json.message, /webhooks\.allowPrivateAddresses/, label);
  assert.match(res.json.message, /imgtask webhooks listen --forward-to/, label);
};

test('POST /webhook and PATCH refuse a URL the service may never reach, naming webhooks.allowPrivateAddresses; nothing is created or changed', async (t) => {
  const h = await startService(t);
  for (const url of NEVER)
    refusedNamingTheSetting(await h.request('POST', '/webhook', { auth: h.token, body: { url } }), url);
  assert.deepEqual((await h.request('GET', '/webhook', { auth: h.token })).json.data, [], 'nothing was created');

  // A public name is not resolved when given: it is accepted, and each delivery checks what it resolves to.
  const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://hooks.example.com/in' } });
  assert.equal(created.status, 201, created.text);
  const { id } = created.json.data;
  refusedNamingTheSetting(
    await h.request('PATCH', `/webhook/${id}`, {
      auth: h.token,
      body: { url: 'http://127.0.0.1:9911/hook', enabled: false },
    }),
    'PATCH',
  );
  const kept = (await h.request('GET', `/webhook/${id}`, { auth: h.token })).json.data;
  assert.equal(kept.url, 'https://hooks.example.com/in');
  assert.equal(kept.enabled, true, 'the refused change changed nothing');
});

test('with webhooks.allowPrivateAddresses a loopback webhook is accepted and delivered to', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true } } });
  const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } });
  assert.equal(created.status, 201, created.text);
  await h.request('POST', `/webhook/${created.json.data.id}/test`, { auth: h.token });
  await receiver.waitFor(1);
});

test("a task's webhook.custom URL the service may never reach refuses the create (and the estimate), naming the entry; nothing is created or reserved", async (t) => {
  const h = await startService(t);
  const webhook = { custom: [{ url: 'https://hooks.example.com/in' }, { url: 'http://127.0.0.1:9911/hook' }] };
  for (const [path, body] of [
    ['/image/generate', { prompt: 'a lighthouse', webhook }],
    ['/video/generate', { prompt: 'waves', webhook }],
    ['/image/remove-background', { url: 'https://images.example.com/a.png', webhook }],
    ['/image/review', { url: 'https://images.example.com/a.png', webhook }],
    ['/test/tasks', { webhook }],
  ] as const) {
    const res = await h.request('POST', path, { auth: h.apiKey, body });
    refusedNamingTheSetting(res, path);
    assert.match(res.json.message, /^webhook\.custom\[1\]\.url: http:\/\/127\.0\.0\.1:9911\/hook /, path);
  }
  const estimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.generate', request: { prompt: 'p', webhook } },
  });
  refusedNamingTheSetting(estimate, 'estimate');
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, [], 'no task was created');
  assert.equal((await accountOf(h)).reserved, '0', 'nothing reserved');

  const fine = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', webhook: { custom: [{ url: 'https://hooks.example.com/in' }] } },
  });
  assert.equal(fine.status, 201, fine.text);
  await waitForTask(h, fine.json.data.taskId);
});

test('the console refuses such a webhook with the reason, keeping what was typed', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const res = await c.post('/console/webhooks', { url: 'http://127.0.0.1:9911/hook', events: ['task.failed'] });
  assert.equal(res.status, 400);
  assert.match(res.text, /webhooks\.allowPrivateAddresses/);
  assert.match(res.text, /value="http:\/\/127\.0\.0\.1:9911\/hook"/);
  assert.deepEqual((await h.request('GET', '/webhook', { auth: h.token })).json.data, [], 'nothing was created');
});

test('a webhook made while private addresses were allowed, then turned off by a reload, fails at delivery naming the setting', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0] } } });
  const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } });
  assert.equal(created.status, 201, created.text);
  const { services } = h.server;
  const current = services.config.current();
  await services.reload({ ...current, webhooks: { ...current.webhooks, allowPrivateAddresses: false } });
  const { id } = created.json.data;
  assert.equal((await h.request('POST', `/webhook/${id}/test`, { auth: h.token })).status, 202);
  const deliveries = () =>
    h.request('GET', `/webhook/${id}/deliveries`, { auth: h.token }).then((res) => res.json.data);
  await eventually(async () => (await deliveries())[0]?.status === 'failed');
  assert.match(
    (await deliveries())[0].attempts[0].error,
    /127\.0\.0\.1 is an address user URLs may not reach \(unless webhooks\.allowPrivateAddresses is true\)/,
  );
  assert.equal(receiver.received.length, 0);
});
