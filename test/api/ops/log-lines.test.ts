import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../../src/app/logger.js';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { eventually, send, testStoreConfig } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';
import { closeBeforeRemoval, tempDir } from '../../helpers/temp-dir.js';

test('structured lines: task created and settled, each webhook attempt with its outcome, the access line with the key id', async (t) => {
  const receiver = await startReceiver(t, [500, 200]);
  const dataDir = await tempDir(t);
  let written = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      written += chunk;
      done();
    },
  });
  const config = loadConfig({
    env: {},
    overrides: deepMerge(
      {
        server: { host: '127.0.0.1', port: 0 },
        work: { shutdownGraceMs: 200, retryBaseMs: 1 },
        webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 10] },
      },
      await testStoreConfig(t),
    ),
  });
  const server = await startServer({
    dataDir,
    config,
    logger: createLogger({ level: 'info', format: 'json' }, { destination }),
    taskTypes: [testTaskType as never],
    extendApi: mountTestRoutes,
    providers: fakeProviders(),
  });
  closeBeforeRemoval(dataDir, () => server.close());
  const lines = () =>
    written
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const { services } = server;
  const account = await services.accounts.create('lines', 10_000_000);
  const { apiKey, raw } = await services.apiKeys.create({ accountId: account.id, name: 'lines' });

  const created = await send(server.url, 'POST', '/test/tasks', {
    auth: raw,
    body: {
      items: 2,
      price: '0.5',
      failItems: [1],
      webhook: { dashboard: false, custom: [{ url: receiver.url('/in') }] },
    },
  });
  assert.equal(created.status, 201, created.text);
  const { taskId } = created.json.data;
  await receiver.waitFor(2);
  await eventually(() => lines().some((l) => l.event === 'webhook.attempt' && l.status === 'delivered'));

  const all = lines();
  const access = all.find((l) => l.event === 'http.request' && l.route === '/test/tasks');
  assert.equal(access.requestId, created.headers.get('x-request-id'));
  assert.equal(access.keyId, apiKey.id);
  assert.equal(access.status, 201);
  assert.ok(!written.includes(raw), 'the raw key is never logged');

  // The create is told once at info: its access line carries the task it made.
  assert.deepEqual(
    {
      taskId: access.taskId,
      type: access.type,
      keyId: access.keyId,
      items: access.items,
      estimateUsd: access.estimateUsd,
    },
    { taskId, type: 'test.echo', keyId: apiKey.id, items: 2, estimateUsd: 1 },
  );
  assert.equal(
    all.filter(
      (l) => l.taskId === taskId && (l.event === 'task.created' || (l.event === 'http.request' && l.method === 'POST')),
    ).length,
    1,
    'one line for the create',
  );
  assert.equal(
    all.find((l) => l.event === 'task.created'),
    undefined,
    'the task.created line is at debug',
  );
  const settled = all.find((l) => l.event === 'task.settled');
  assert.deepEqual(
    {
      taskId: settled.taskId,
      status: settled.status,
      costUsd: settled.costUsd,
      failedItems: settled.failedItems,
      errorCode: settled.errorCode,
    },
    { taskId, status: 'completed', costUsd: 0.5, failedItems: 1, errorCode: 'RESTRICTED_CONTENT' },
  );
  assert.equal(typeof settled.ms, 'number');

  const attempts = all.filter((l) => l.event === 'webhook.attempt');
  assert.deepEqual(
    attempts.map((l) => ({
      level: l.level,
      status: l.status,
      httpStatus: l.httpStatus,
      attempt: l.attempt,
      eventType: l.eventType,
    })),
    [
      { level: 'info', status: 'pending', httpStatus: 500, attempt: 1, eventType: 'task.test.echo.completed' },
      { level: 'info', status: 'delivered', httpStatus: 200, attempt: 2, eventType: 'task.test.echo.completed' },
    ],
  );
  assert.equal(attempts[0].deliveryId, attempts[1].deliveryId);
  assert.ok(!written.includes(receiver.url('/in')), 'the webhook URL is not logged');
});
