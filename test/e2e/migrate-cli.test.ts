import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import { redactUrl } from '../../src/app/store-backend.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { send } from '../helpers/harness.js';
import { testDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

const noStackTrace = (text: string) => assert.doesNotMatch(text, /^\s+at .+:\d+:\d+\)?$/m);

/**
 * A fresh database owned by a role of its own with a password found nowhere else, so a test can
 * assert that it never appears in any output. Answers the role's URL and the password.
 */
async function ownDatabase(t: TestContext): Promise<{ url: string; password: string }> {
  const adminDbUrl = await testDatabase(t);
  const name = new URL(adminDbUrl).pathname.slice(1);
  const role = `imgtask_r_${randomBytes(4).toString('hex')}`;
  const password = `Pw-${randomBytes(9).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminDbUrl });
  await client.connect();
  try {
    await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await client.query(`ALTER DATABASE ${name} OWNER TO ${role}`);
  } finally {
    await client.end();
  }
  // Runs after testDatabase's hook (hooks run in the order added): the database is gone by then.
  t.after(async () => {
    const dropper = new pg.Client({ connectionString: adminDbUrl.replace(`/${name}`, '/postgres') });
    await dropper.connect();
    try {
      await dropper.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await dropper.end();
    }
  });
  const url = new URL(adminDbUrl);
  url.username = role;
  url.password = password;
  return { url: url.toString(), password };
}

test('imgtask migrate on a fresh database applies every migration and prints the versions; run again, it applies nothing', async (t) => {
  const { url, password } = await ownDatabase(t);
  const env = { IMGTASK_DATABASE_URL: url };
  const first = await runCli(['migrate', '--json'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.json.driver, 'postgres');
  assert.equal(first.json.from, 0, 'a fresh database starts at version 0');
  assert.ok(first.json.to > 0, `to ${first.json.to}`);
  assert.ok(
    first.json.applied.length > 0 && first.json.applied.every((name: unknown) => typeof name === 'string'),
    JSON.stringify(first.json.applied),
  );
  assert.equal(first.json.database, redactUrl(url));
  assert.match(first.json.database, /:\*\*\*@/);

  const again = await runCli(['migrate'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`schema version ${first.json.to}, the latest: nothing to apply`));
  const againJson = await runCli(['migrate', '--json'], env);
  assert.deepEqual(
    [againJson.json.from, againJson.json.to, againJson.json.applied],
    [first.json.to, first.json.to, []],
  );
  for (const out of [first, again, againJson])
    assert.ok(!(out.stdout + out.stderr).includes(password), 'the password is never printed');
});

test('imgtask migrate prints from → to and the migrations it applied, as text', async (t) => {
  const { url, password } = await ownDatabase(t);
  const data = await tempDir(t);
  const file = join(data, 'imgtask.json');
  await writeFile(file, JSON.stringify({ store: { driver: 'postgres', postgres: { url } } }));
  const out = await runCli(['--config', file, 'migrate']);
  assert.equal(out.code, 0, out.stderr);
  const [head, ...applied] = out.stdout.trim().split('\n');
  assert.match(
    head,
    /^postgres:\/\/imgtask_r_[0-9a-f]+:\*\*\*@127\.0\.0\.1:\d+\/imgtask_t_\w+: schema version 0 → \d+, applied:$/,
  );
  assert.ok(applied.length > 0 && applied.every((line) => /^ {2}\S/.test(line)), out.stdout);
  assert.ok(!out.stdout.includes(password) && !out.stderr.includes(password));
});

test('imgtask migrate with the file driver says there is nothing to migrate and exits 0', async (t) => {
  const data = await tempDir(t);
  const out = await runCli(['--data', data, 'migrate'], { IMGTASK_DATABASE_URL: '' });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /store\.driver "file"\): nothing to migrate/);
  const json = await runCli(['--data', data, 'migrate', '--json'], { IMGTASK_DATABASE_URL: '' });
  assert.deepEqual(json.json, { driver: 'file' });
  await assert.rejects(stat(join(data, 'store')), 'migrate does not open the file store');
});

test('imgtask serve on an unmigrated database exits 1 with one line naming imgtask migrate, without the password', async (t) => {
  const { url, password } = await ownDatabase(t);
  const data = await tempDir(t);
  const out = await runCli(['--data', data, 'serve', '--port', '0'], { IMGTASK_DATABASE_URL: url });
  assert.equal(out.code, 1, out.stdout + out.stderr);
  assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
  assert.match(
    out.stderr,
    /^imgtask: the database postgres:\/\/imgtask_r_\w+:\*\*\*@\S+ is at schema version 0, this imgtask needs \d+: run imgtask migrate\n$/,
  );
  noStackTrace(out.stderr);
  assert.ok(!(out.stdout + out.stderr).includes(password));
});

test('imgtask serve after migrate answers /health and creates a task on PostgreSQL (IMGTASK_DATABASE_URL alone selects it)', async (t) => {
  const { url, password } = await ownDatabase(t);
  const env = { IMGTASK_DATABASE_URL: url };
  assert.equal((await runCli(['migrate'], env)).code, 0);
  const data = await tempDir(t);
  const account = await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5', '--json'], env);
  assert.equal(account.code, 0, account.stderr);
  const key = await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'], env);
  assert.equal(key.code, 0, key.stderr);
  const { child, url: server, output } = await startServeProcess(['--data', data], env);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  assert.equal((await send(server, 'GET', '/health')).status, 200);
  const created = await send(server, 'POST', '/image/generate', {
    auth: key.json.raw,
    body: { prompt: 'a lighthouse' },
  });
  assert.equal(created.status, 201, created.text);
  const taskId: string = created.json.data.taskId;
  let status = 'pending';
  for (let i = 0; i < 300 && status === 'pending'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = (await send(server, 'GET', `/tasks/${taskId}`, { auth: key.json.raw })).json.data.status;
  }
  assert.equal(status, 'completed');
  await assert.rejects(stat(join(data, 'store')), 'no journaled store in the data dir');

  // Another process on another data dir (other keys files) reads the same task: it lives in the database.
  child.kill('SIGTERM');
  await exited;
  const other = await tempDir(t);
  const second = await startServeProcess(['--data', other], env);
  const secondExited = new Promise((resolve) => second.child.once('exit', resolve));
  t.after(async () => {
    second.child.kill('SIGTERM');
    await secondExited;
  });
  const read = await send(second.url, 'GET', `/tasks/${taskId}`, { auth: key.json.raw });
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(
    [read.json.data.id, read.json.data.status, read.json.data.result.images.length],
    [taskId, 'completed', 1],
  );
  assert.ok(
    !(output() + second.output() + account.stdout + key.stdout).includes(password),
    'the password is never printed',
  );
});

test('a wrong password or an unreachable server is one line naming the database, never the password', async (t) => {
  const { url, password } = await ownDatabase(t);
  const wrong = new URL(url);
  wrong.password = `${password}-wrong`;
  const denied = await runCli(['migrate'], { IMGTASK_DATABASE_URL: wrong.toString() });
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /^imgtask: .*password authentication failed/);
  assert.ok(!denied.stderr.includes(password) && !denied.stdout.includes(password), denied.stderr);

  const closed = new URL(url);
  closed.port = '1'; // nothing listens there
  const unreachable = await runCli(['migrate'], { IMGTASK_DATABASE_URL: closed.toString() });
  assert.equal(unreachable.code, 1);
  assert.match(
    unreachable.stderr,
    /^imgtask: cannot reach the database postgres:\/\/imgtask_r_\w+:\*\*\*@127\.0\.0\.1:1\/\w+: .*ECONNREFUSED/,
  );
  assert.equal(unreachable.stderr.trim().split('\n').length, 1);
  assert.ok(!unreachable.stderr.includes(password));
});

test('config: IMGTASK_DATABASE_URL selects postgres unless a file names the driver; postgres without a URL is a ConfigError naming IMGTASK_DATABASE_URL', async (t) => {
  const url = 'postgres://u:secret@db.example:5432/imgtask';
  const byEnv = loadConfig({ env: { IMGTASK_DATABASE_URL: url } });
  assert.deepEqual(
    [byEnv.store.driver, byEnv.store.postgres.url, byEnv.store.postgres.poolSize],
    ['postgres', url, 10],
  );
  assert.equal(loadConfig({ env: {} }).store.driver, 'file', 'the default stays the file store');

  const data = await tempDir(t);
  const file = join(data, 'imgtask.json');
  await writeFile(file, JSON.stringify({ store: { driver: 'file' } }));
  const pinned = loadConfig({ file, env: { IMGTASK_DATABASE_URL: url } });
  assert.deepEqual(
    [pinned.store.driver, pinned.store.postgres.url],
    ['file', url],
    'a file that names the driver wins',
  );

  assert.throws(
    () => loadConfig({ env: {}, overrides: { store: { driver: 'postgres' } } }),
    (err: Error) => err instanceof ConfigError && /IMGTASK_DATABASE_URL/.test(err.message),
  );
  assert.throws(
    () => loadConfig({ env: { IMGTASK_DATABASE_URL: 'mysql://u:secret@h/db' } }),
    (err: Error) =>
      err instanceof ConfigError &&
      /store\.postgres\.url: a PostgreSQL URL/.test(err.message) &&
      !err.message.includes('secret'),
  );
  assert.throws(
    () => loadConfig({ env: {}, overrides: { store: { postgres: { poolSize: 0 } } } }),
    /store\.postgres\.poolSize/,
  );
  assert.equal(
    redactUrl('postgresql://u:p%40ss@h/db?password=x&sslmode=require'),
    'postgresql://u:***@h/db?password=***&sslmode=require',
  );
  assert.equal(redactUrl('postgres://h/db'), 'postgres://h/db', 'nothing to hide: unchanged');
});
