import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/load.js';
import { mountTestRoutes, testTaskType } from '../fixtures/test-task-type.js';
import { runCli } from '../helpers/cli.js';
import { send } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

test('accounts show gives balance, reserved, available and per-key spend; doctor passes; sweep reports', async (t) => {
  const data = await tempDir(t);
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const key = (
    await runCli([
      '--data',
      data,
      'keys',
      'create',
      '--account',
      'acme',
      '--spending-limit',
      '2',
      '--period',
      'week',
      '--json',
    ])
  ).json;

  const config = loadConfig({ env: {}, overrides: { server: { port: 0 }, work: { shutdownGraceMs: 100 } } });
  const server = await startServer({
    dataDir: data,
    config,
    taskTypes: [testTaskType as never],
    extendApi: mountTestRoutes,
  });
  try {
    await send(server.url, 'POST', '/test/tasks', {
      auth: key.raw,
      body: { items: 2, price: '0.75', delayMs: 60_000 },
    });
    const shown = await runCli(['--data', data, 'accounts', 'show', 'acme', '--json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual([shown.json.balance, shown.json.reserved, shown.json.available], ['5', '1.5', '3.5']);
    const [k] = shown.json.keys;
    assert.equal(k.periodSpend, '1.5');
    assert.equal(k.spendingLimit, '2');
    assert.match(k.period, /^\d{4}-\d\d-\d\d$/, 'the Monday the ISO week starts');
    const human = await runCli(['--data', data, 'accounts', 'show', 'acme']);
    assert.match(human.stdout, /reserved 1\.5\s+available 3\.5/);

    const swept = await runCli(['--data', data, 'sweep', '--json']);
    assert.deepEqual(swept.json, {
      expired: 0,
      taskIds: [],
      erased: [],
      retention: { outputs: 0, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 },
    });
    const doctor = await runCli(['--data', data, 'doctor', '--json']);
    assert.equal(doctor.code, 0);
    assert.deepEqual(doctor.json.problems, []);
    assert.equal(doctor.json.ledger.checked.tasks, 1);
  } finally {
    await server.close();
  }
});

test('doctor exits 1 and names the problem when the ledger is broken', async (t) => {
  const data = await tempDir(t);
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  assert.equal((await runCli(['--data', data, 'doctor'])).code, 0);
  // A balance that no credit explains: edit the snapshot the way a bad restore or a bug would.
  const snapshot = join(data, 'store', 'snapshot.json');
  await writeFile(snapshot, (await readFile(snapshot, 'utf8')).replace('"balance":5000000', '"balance":9000000'));
  const broken = await runCli(['--data', data, 'doctor']);
  assert.equal(broken.code, 1);
  assert.match(broken.stdout, /ledger BROKEN/);
  assert.match(broken.stdout, /account acme: balance 9 USD but credits − charges = 5 USD/);
});
