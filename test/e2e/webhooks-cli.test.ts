import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { eventually } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

test('imgtask webhooks create|list|show|update|rotate-secret|test|deliveries|redeliver|delete on a running server', async (t) => {
  const data = await tempDir(t);
  const config = join(data, 'imgtask.json');
  await writeFile(
    config,
    JSON.stringify({ webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 100], timeoutMs: 1000 } }),
  );
  const receiver = await startReceiver(t, [500, 200]);
  const serve = await startServeProcess(['--data', data, '--config', config]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  const cli = (...args: string[]) => runCli(['--data', data, ...args]);
  await cli('accounts', 'create', 'acme');

  const created = await cli(
    'webhooks',
    'create',
    '--account',
    'acme',
    '--endpoint',
    receiver.url(),
    '--events',
    'task.completed,task.image.generate.failed',
    '--json',
  );
  assert.equal(created.code, 0, created.stderr);
  const { id, secret } = created.json;
  assert.match(secret, /^whsec_/);
  assert.deepEqual(created.json.events, ['task.completed', 'task.image.generate.failed']);
  const bad = await cli(
    'webhooks',
    'create',
    '--account',
    'acme',
    '--endpoint',
    receiver.url(),
    '--events',
    'task.nope',
  );
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown event kind task\.nope/);

  const list = await cli('webhooks', 'list', '--account', 'acme', '--json');
  assert.deepEqual(
    list.json.map((w: { id: string }) => w.id),
    [id],
  );

  const tested = await cli('webhooks', 'test', id, '--json');
  assert.equal(tested.code, 0, tested.stderr);
  await receiver.waitFor(2, 5000); // 500, then the retry gets 200
  new Webhook(secret).verify(receiver.received[1].body, receiver.received[1].headers as Record<string, string>);
  let deliveries: { id: string; status: string; attempts: { status: number }[] }[] = [];
  await eventually(async () => {
    deliveries = (await cli('webhooks', 'deliveries', id, '--json')).json;
    return deliveries[0]?.status === 'delivered';
  });
  assert.deepEqual(
    deliveries[0].attempts.map((a) => a.status),
    [500, 200],
  );
  const human = await cli('webhooks', 'deliveries', id);
  assert.match(human.stdout, /webhook\.test\s+delivered\s+500\/\d+ 200\/\d+/);

  assert.equal((await cli('webhooks', 'redeliver', deliveries[0].id)).code, 0);
  await receiver.waitFor(3);
  assert.equal(receiver.received[2].headers['webhook-id'], receiver.received[0].headers['webhook-id']);

  const disabled = await cli('webhooks', 'update', id, '--disable', '--events', 'all', '--json');
  assert.equal(disabled.json.enabled, false);
  assert.equal(disabled.json.events, null);
  const shown = await cli('webhooks', 'show', id, '--json');
  assert.equal(shown.json.enabled, false);
  assert.deepEqual(shown.json.apiKeyIds, []);
  const rotated = await cli('webhooks', 'rotate-secret', id, '--json');
  assert.notEqual(rotated.json.secret, secret);
  assert.equal((await cli('webhooks', 'delete', id)).code, 0);
  assert.equal((await cli('webhooks', 'show', id)).code, 2);
});
