import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { deepMerge } from '../../src/config/load.js';
import { JsonStore } from '../../src/store/file/json-store.js';
import { BIN, runCli } from '../helpers/cli.js';
import { startFixture } from '../helpers/fixture-server.js';
import { eventually, send, testStore, testStoreConfig } from '../helpers/harness.js';
import { sql, tablesHolding } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

/**
 * Test tasks whose metadata holds the marker. On the file store more than two batches of the
 * erase (200): the server is killed once it logs the first, so the kill lands in the middle. On
 * PostgreSQL the erase runs in the CLI's process, killed at the first task scrubbed.
 */
const TASKS = testStore() === 'postgres' ? 150 : 450;

/** Every file under `dir` whose bytes hold `marker`. */
async function filesHolding(dir: string, marker: string): Promise<string[]> {
  const needle = Buffer.from(marker);
  const holding: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(needle)) holding.push(path);
  }
  return holding;
}

/** Rows of a query on the test database. */
/**
 * The account's erase marks and how many of its tasks still hold data, read from the store at rest (file) or the
 * database.
 */
async function eraseState(data: string, dbUrl: string | undefined, accountId: string) {
  if (dbUrl) {
    // The name is kept as its JSON text.
    const [account] = await sql<{ erasing_since: string | null; erased_at: string | null; name: string }>(
      dbUrl,
      'SELECT erasing_since, erased_at, name_key AS name FROM accounts WHERE id = $1',
      [accountId],
    );
    account.name = JSON.parse(account.name);
    const [{ count }] = await sql<{ count: string }>(
      dbUrl,
      'SELECT count(*) AS count FROM tasks WHERE account_id = $1 AND data_removed_at IS NULL',
      [accountId],
    );
    return {
      erasingSince: account.erasing_since,
      erasedAt: account.erased_at,
      name: account.name,
      holdingData: Number(count),
    };
  }
  const store = await JsonStore.open({ dir: join(data, 'store'), snapshotOnClose: false });
  try {
    const account = (await store.accounts.get(accountId))!;
    let holdingData = 0;
    for (const task of await store.tasks.all())
      if (task.accountId === accountId && task.dataRemovedAt === undefined) holdingData++;
    return {
      erasingSince: account.erasingSince ?? null,
      erasedAt: account.erasedAt ?? null,
      name: account.name,
      holdingData,
    };
  } finally {
    await store.close();
  }
}

/** The database URL of the PostgreSQL store under test, if that is the store. */
const databaseOf = (storeConfig: Record<string, any>): string | undefined => storeConfig.store?.postgres?.url;

async function setup(t: TestContext) {
  const data = await tempDir(t);
  const storeConfig = await testStoreConfig(t);
  const overrides = deepMerge(storeConfig, {
    webhooks: { allowPrivateAddresses: true },
    work: { lanes: { test: 16 } },
  });
  const configFile = join(await tempDir(t), 'config.json');
  await writeFile(configFile, JSON.stringify(overrides));
  const cli = (...args: string[]) => runCli(['--data', data, '--config', configFile, ...args]);
  const created = await cli('accounts', 'create', 'acme', '--credit', '100', '--json');
  assert.equal(created.code, 0, created.stderr);
  const key: string = (await cli('keys', 'create', '--account', 'acme', '--json')).json.raw;
  return {
    data,
    overrides,
    configFile,
    cli,
    key,
    accountId: created.json.id as string,
    dbUrl: databaseOf(storeConfig),
  };
}

test('an erase killed in the middle is finished by the next start, nothing of it is served meanwhile, and then no byte of its prompts, metadata or webhook payloads is left (the whole data dir; on PostgreSQL every table)', async (t) => {
  const { data, overrides, configFile, cli, key, accountId, dbUrl } = await setup(t);
  const marker = `erase-marker-${randomBytes(8).toString('hex')}`;
  let server = await startFixture(data, overrides);
  closeBeforeRemoval(data, async () => server.child.kill('SIGKILL'));
  const receiver = await startReceiver(t);
  const hooked = await cli('webhooks', 'create', '--account', 'acme', '--endpoint', receiver.url(), '--json');
  assert.equal(hooked.code, 0, hooked.stderr);

  // The marker in prompts (with real outputs), in metadata, and so in every webhook payload.
  const images: string[] = [];
  const generates: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await send(server.url, 'POST', '/image/generate', {
      auth: key,
      body: { prompt: `a kite, ${marker}`, metadata: { note: marker } },
    });
    assert.equal(res.status, 201, res.text);
    generates.push(res.json.data.taskId);
  }
  const tasks: string[] = [];
  for (let start = 0; start < TASKS; start += 25) {
    const page = await Promise.all(
      Array.from({ length: Math.min(25, TASKS - start) }, () =>
        send(server.url, 'POST', '/test/tasks', { auth: key, body: { price: '0.01', metadata: { note: marker } } }),
      ),
    );
    for (const res of page) {
      assert.equal(res.status, 201, res.text);
      tasks.push(res.json.data.taskId);
    }
  }
  await receiver.waitFor(TASKS + 3, 60_000);
  assert.ok(
    receiver.received.some((r) => r.body.includes(marker)),
    'the payloads carried the marker',
  );
  for (const id of generates) {
    const task = (await send(server.url, 'GET', `/tasks/${id}`, { auth: key })).json.data;
    assert.equal(task.status, 'completed');
    images.push(new URL(task.result.images[0].service_url).pathname);
  }
  assert.equal((await send(server.url, 'GET', images[0])).status, 200);

  // The erase, killed once its first batch of tasks is scrubbed: in the server (file store, through
  // its admin socket), or in the CLI's own process (PostgreSQL: the command works on the database).
  const eraser = spawn(
    process.execPath,
    [BIN, '--data', data, '--config', configFile, 'accounts', 'erase', 'acme', '--yes', '--json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const eraserExit = new Promise((resolve) => eraser.on('close', resolve));
  if (dbUrl) {
    await eventually(
      async () =>
        Number(
          (
            await sql<{ n: string }>(
              dbUrl,
              'SELECT count(*) AS n FROM tasks WHERE account_id = $1 AND data_removed_at IS NOT NULL',
              [accountId],
            )
          )[0].n,
        ) >= 1,
      60_000,
    );
    eraser.kill('SIGKILL');
  } else {
    await eventually(() => server.log().includes('task(s) scrubbed so far'), 60_000);
    server.child.kill('SIGKILL');
  }
  await eraserExit;

  const half = await eraseState(data, dbUrl, accountId);
  assert.ok(half.erasingSince, 'the erase had begun');
  assert.equal(half.erasedAt, null, 'and had not finished');
  assert.ok(half.holdingData > 0 && half.holdingData < TASKS + 3, `some tasks still held data: ${half.holdingData}`);
  if (dbUrl) {
    assert.ok(
      (await tablesHolding(dbUrl, marker)).length > 0,
      'the dump finds the marker while the erase is half done',
    );
    // The process still serving takes no credential of the account meanwhile.
    assert.equal((await send(server.url, 'GET', `/tasks/${tasks.at(-1)}`, { auth: key })).status, 401);
    server.child.kill('SIGKILL');
    await server.exited;
  } else {
    await server.exited;
    assert.ok((await filesHolding(data, marker)).length > 0, 'the grep finds the marker while the erase is half done');
  }

  // The next start finishes the erase before it serves.
  server = await startFixture(data, overrides);
  assert.equal((await send(server.url, 'GET', `/tasks/${tasks.at(-1)}`, { auth: key })).status, 401);
  for (const image of images) assert.equal((await send(server.url, 'GET', image)).status, 404, `${image} is gone`);
  assert.match(server.log(), /erase: account acc_\w+ \(acme\): started \(resuming the erase begun /);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.log());

  const done = await eraseState(data, dbUrl, accountId);
  assert.deepEqual(done, { erasingSince: null, erasedAt: done.erasedAt, name: accountId, holdingData: 0 });
  assert.ok(done.erasedAt);
  const doctor = await cli('doctor', '--json');
  assert.equal(doctor.json.ledger.ok, true, JSON.stringify(doctor.json.ledger.problems));
  assert.deepEqual(await filesHolding(data, marker), [], 'no file under the data dir holds the marker');
  if (dbUrl) assert.deepEqual(await tablesHolding(dbUrl, marker), [], 'no table holds the marker');
  assert.equal(testStore() === 'postgres', dbUrl !== undefined);
});
