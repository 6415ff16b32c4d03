import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/load.js';
import { JsonStore } from '../../src/store/file/json-store.js';
import { mountTestRoutes, testTaskType } from '../fixtures/test-task-type.js';
import { runCli } from '../helpers/cli.js';
import { startFixture } from '../helpers/fixture-server.js';
import { eventually, send } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const WEBHOOKS = { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 1500, 100], timeoutMs: 1000 } };

test('a server killed with SIGKILL while a delivery waits for its retry completes it after the restart, same event id', async (t) => {
  const data = await tempDir(t);
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '10']);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  const token = (await runCli(['--data', data, 'tokens', 'issue', '--account', 'acme', '--json'])).json.accessToken;
  const receiver = await startReceiver(t, [500]);
  let server = await startFixture(data, WEBHOOKS);
  closeBeforeRemoval(data, async () => server.child.kill('SIGKILL'));

  const hook = await send(server.url, 'POST', '/webhook', { auth: token, body: { url: receiver.url() } });
  assert.equal(hook.status, 201);
  await send(server.url, 'POST', '/test/tasks', { auth: key, body: {} });
  const [first] = await receiver.waitFor(1);
  // The failed attempt is journaled before the kill.
  await eventually(
    async () =>
      (await send(server.url, 'GET', `/webhook/${hook.json.data.id}/deliveries`, { auth: token })).json.data[0]
        ?.attempts.length === 1,
  );
  server.child.kill('SIGKILL');
  await server.exited;

  receiver.answers = [200];
  server = await startFixture(data, WEBHOOKS);
  const [, second] = await receiver.waitFor(2, 10_000);
  assert.equal(second.headers['webhook-id'], first.headers['webhook-id']);
  assert.equal(second.body, first.body, 'the same event, byte for byte');
  // The receiver has the request before the server has journaled its answer.
  let log: any;
  await eventually(async () => {
    log = await send(server.url, 'GET', `/webhook/${hook.json.data.id}/deliveries`, { auth: token });
    return log.json.data[0]?.status !== 'pending';
  });
  assert.deepEqual(
    log.json.data[0].attempts.map((a: { status: number }) => a.status),
    [500, 200],
  );
});

test('a task that settled just before a crash, before its event was written, is delivered at the next start', async (t) => {
  const data = await tempDir(t);
  const receiver = await startReceiver(t);
  const config = loadConfig({
    env: {},
    overrides: { server: { port: 0 }, work: { shutdownGraceMs: 50 }, ...WEBHOOKS },
  });
  const options = { dataDir: data, config, taskTypes: [testTaskType as never], extendApi: mountTestRoutes };
  let server = await startServer(options);
  const account = await server.services.accounts.create('acme', 10_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id });
  await server.services.webhooks.create(account.id, { url: receiver.url() });
  const { taskId } = (await send(server.url, 'POST', '/test/tasks', { auth: raw, body: { delayMs: 60_000 } })).json
    .data;
  await server.close();

  // Settle it with no event, as a crash between the two writes would leave it.
  const store = await JsonStore.open({ dir: join(data, 'store') });
  await store.tasks.settle({
    id: taskId,
    status: 'failed',
    result: null,
    errors: [{ code: 'UNKNOWN_ERROR' }],
    cost: 0,
    at: new Date().toISOString(),
  });
  await store.close();

  server = await startServer(options);
  closeBeforeRemoval(data, () => server.close());
  const [delivery] = await receiver.waitFor(1);
  assert.equal(delivery.json.type, 'task.test.echo.failed');
  assert.equal(delivery.json.data.taskId, taskId);
});
