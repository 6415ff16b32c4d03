import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import { checkLedger } from '../../src/services/doctor.js';
import { migrate, PgStore } from '../../src/store/postgres/postgres-store.js';
import { BIN, runCli, startServeProcess } from '../helpers/cli.js';
import { until as untilValue } from '../helpers/fleet.js';
import { send } from '../helpers/harness.js';
import { makeImage, serveFiles } from '../helpers/images.js';
import { testDatabase } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A fleet on one PostgreSQL database, as real child processes: `serve` (API and work), two
 * `serve --no-work` (API only) and two `worker`s. Tasks created on any server are claimed and run
 * by whichever working process has room; a process killed mid-item leaves its lease to expire
 * and another runs the item; a server killed mid-burst loses none of the creates it answered.
 * Money and key limits under racing creates, and a `serve` killed mid-burst with its leases, are
 * in fleet-faults.test.ts.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/fleet-process.ts');
const LEASE_MS = 1500;

interface Member {
  name: string;
  role: 'all' | 'api' | 'work';
  child: ChildProcess;
  url?: string;
  exited: Promise<number | null>;
  output: () => string;
}

function startMember(
  t: TestContext,
  name: string,
  dataDir: string,
  role: Member['role'],
  overrides: object,
): Promise<Member> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, role, JSON.stringify(overrides)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let out = '';
    const member: Member = { name, role, child, exited, output: () => out };
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const listening = /listening (http:\/\/\S+)/.exec(out);
      if (listening) resolve({ ...member, url: listening[1] });
      else if (/working \S+/.test(out)) resolve(member);
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    exited.then((code) => reject(new Error(`${name} exited with ${code}: ${out}`)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The shared poll (test/helpers/fleet.ts), with this file's 20 s bound. */
const until = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => untilValue(what, fn, 20_000);

test('a fleet of 3 servers and 2 workers on one database: creates anywhere complete, sync answers from an API-only server, a killed worker’s task is re-claimed and charged once, a killed server loses no acknowledged create', async (t) => {
  const url = await testDatabase(t);
  await migrate(url);
  const store = { driver: 'postgres', postgres: { url, poolSize: 4 } };

  // The account and key, made once; every process gets a copy of the same keys (the data dir's keys must match across
  // the fleet).
  const seedDir = await tempDir(t);
  const seed = (
    await openServices({
      dataDir: seedDir,
      config: loadConfig({ env: {}, overrides: { store } }),
      log: () => undefined,
    })
  ).internals;
  const account = await seed.accounts.create('fleet', 100 * 1_000_000);
  const { raw: apiKey } = await seed.apiKeys.create({ accountId: account.id, name: 'fleet' });
  await seed.close();

  const files = await serveFiles(t, { '/light.png': await makeImage({ rgb: [230, 230, 230] }) });
  const receiver = await startReceiver(t);
  const overrides = {
    store,
    work: { leaseMs: LEASE_MS, defaultConcurrency: 4 },
    fetch: { allowPrivateAddresses: true },
    webhooks: { allowPrivateAddresses: true },
  };
  const member = async (name: string, role: Member['role']) => {
    const dir = await tempDir(t);
    await cp(join(seedDir, 'keys'), join(dir, 'keys'), { recursive: true });
    return startMember(t, name, dir, role, overrides);
  };
  const [s1, s2, s3, w1, w2] = await Promise.all([
    member('s1', 'all'),
    member('s2', 'api'),
    member('s3', 'api'),
    member('w1', 'work'),
    member('w2', 'work'),
  ]);
  const servers = [s1, s2, s3];
  const db = await PgStore.open({ url, poolSize: 2 });
  t.after(() => db.close());

  // 1. Creates spread over the three servers all complete; each one's webhook is sent once, by the one dispatcher.
  const created = await Promise.all(
    Array.from({ length: 24 }, async (_, n) => {
      const body = { items: 2, delayMs: 30, webhook: { dashboard: false, custom: [{ url: receiver.url('/hook') }] } };
      const res = await send(servers[n % 3].url!, 'POST', '/test/tasks', { auth: apiKey, body });
      assert.equal(res.status, 201, res.text);
      return res.json.data.taskId as string;
    }),
  );
  await until('every created task to complete', async () => {
    const tasks = await Promise.all(created.map((id) => db.tasks.get(id)));
    return tasks.every((task) => task?.status === 'completed') ? true : undefined;
  });
  await receiver.waitFor(created.length, 15_000);
  await sleep(500); // a second dispatcher, if there were one, would send its copies meanwhile
  const hooked = receiver.received.map((r) => r.json.data.taskId as string);
  assert.equal(hooked.length, created.length, 'one delivery per task, none twice');
  assert.deepEqual([...hooked].sort(), [...created].sort());

  // 2. A sync rate answered 200 by a server that runs no work: a worker ran it, the settlement came back by NOTIFY.
  const rated = await send(s2.url!, 'POST', '/image/rate', {
    auth: apiKey,
    body: { mode: 'nsfw_sfw', urls: [files('/light.png')] },
  });
  assert.equal(rated.status, 200, rated.text);
  assert.equal(rated.json.data.task.status, 'completed');
  assert.equal(rated.json.data.results[0].level, 'sfw');

  // 3. The process running a slow item is killed: after its lease, another claims the task, runs the item, the task
  // completes once, charged once.
  const runLog = join(seedDir, 'runs.log');
  const slow = await send(s3.url!, 'POST', '/test/tasks', {
    auth: apiKey,
    body: { items: 1, delayMs: 2500, price: '0.25', runLog },
  });
  assert.equal(slow.status, 201, slow.text);
  const slowId: string = slow.json.data.taskId;
  const owner = await until('the slow item to start', async () => {
    const { rows } = await db.pool.query<{ lease_owner: string | null }>(
      'SELECT lease_owner FROM tasks WHERE id = $1',
      [slowId],
    );
    const started = (await readFile(runLog, 'utf8').catch(() => '')).includes(`${slowId}:0:1`);
    return started && rows[0].lease_owner ? rows[0].lease_owner : undefined;
  });
  const victim = [s1, w1, w2].find((m) => owner.split(':')[1] === String(m.child.pid));
  assert.ok(victim, `the lease owner ${owner} is one of the working processes`);
  const killedAt = Date.now();
  victim.child.kill('SIGKILL');
  await victim.exited;
  const done = await until('the slow task to complete elsewhere', async () => {
    const task = await db.tasks.get(slowId);
    return task?.status === 'completed' ? task : undefined;
  });
  const reclaimedIn = Date.now() - killedAt;
  assert.ok(reclaimedIn >= LEASE_MS - 200, 'not claimed again before its lease expired');
  const runs = (await readFile(runLog, 'utf8')).trim().split('\n');
  assert.equal(runs.length, 2, `run twice in all (the killed run, then the re-claimed one): ${runs.join(' ')}`);
  assert.equal(done.items.length, 1);
  assert.equal(done.items[0].status, 'success');
  assert.equal(done.cost, 250_000, 'charged its one item once');

  // 4. A server killed mid-burst: every create it answered 201 is in the database.
  const target = s2;
  const answered: string[] = [];
  let sent = 0;
  const burst = Array.from({ length: 80 }, async () => {
    sent++;
    const res = await send(target.url!, 'POST', '/test/tasks', { auth: apiKey, body: { items: 1 } }).catch(
      () => undefined,
    );
    if (res?.status === 201) answered.push(res.json.data.taskId);
    if (answered.length === 10) target.child.kill('SIGKILL');
  });
  await Promise.all(burst);
  await target.exited;
  assert.ok(answered.length >= 10, `answered ${answered.length} of ${sent}`);
  t.diagnostic(
    `killed ${victim.name} (${victim.role}) mid-item, its task completed elsewhere ${reclaimedIn} ms later (lease ${LEASE_MS} ms); ${target.name} answered ${answered.length} of ${sent} creates before SIGKILL`,
  );
  for (const id of answered) assert.ok(await db.tasks.get(id), `acknowledged create ${id} is in the database`);

  // Everything acknowledged settles; the ledger holds: balance = credit − charges, nothing reserved.
  await until('every acknowledged task to settle', async () =>
    (await db.tasks.countPending()) === 0 ? true : undefined,
  );
  const report = await checkLedger(db);
  assert.deepEqual(report.problems, []);
  const acc = await db.accounts.get(account.id);
  const charged = [...(await db.tasks.all())]
    .filter((task) => task.accountId === account.id)
    .reduce((sum, task) => sum + task.cost, 0);
  assert.equal(acc!.balance, 100 * 1_000_000 - charged);
  assert.equal(await db.tasks.reserved(account.id), 0);

  for (const m of [s1, s3, w1, w2].filter((x) => x !== victim)) m.child.kill('SIGTERM');
  for (const m of [s1, s3, w1, w2].filter((x) => x !== victim))
    assert.equal(await m.exited, 0, `${m.name} stops cleanly on SIGTERM: ${m.output().slice(-500)}`);
});

test('imgtask serve --no-work and imgtask worker: the API process runs nothing, the worker runs the task, both stop on SIGTERM; on the file store both refuse', async (t) => {
  const data = await tempDir(t);
  for (const args of [['worker'], ['serve', '--no-work', '--port', '0']]) {
    const refused = await runCli(['--data', data, ...args], { IMGTASK_DATABASE_URL: '' });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /needs store\.driver "postgres".*the file store belongs to one process/);
  }

  const url = await testDatabase(t);
  const env = { IMGTASK_DATABASE_URL: url };
  assert.equal((await runCli(['migrate'], env)).code, 0);
  assert.equal((await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5'], env)).code, 0);
  const key = await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'], env);
  assert.equal(key.code, 0, key.stderr);
  const api = await startServeProcess(['--data', data], env, ['--no-work']);
  const apiExited = new Promise((resolve) => api.child.once('exit', resolve));
  t.after(async () => {
    api.child.kill('SIGKILL');
    await apiExited;
  });
  // Ready at once: an API-only process loads no model, so readiness does not wait for one.
  const ready = await send(api.url, 'GET', '/ready');
  assert.equal(ready.status, 200, ready.text);
  const created = await send(api.url, 'POST', '/image/generate', {
    auth: key.json.raw,
    body: { prompt: 'a lighthouse' },
  });
  assert.equal(created.status, 201, created.text);
  const taskId: string = created.json.data.taskId;
  await sleep(1500);
  assert.equal(
    (await send(api.url, 'GET', `/tasks/${taskId}`, { auth: key.json.raw })).json.data.status,
    'pending',
    'an API-only server runs nothing',
  );

  const worker = spawn(process.execPath, [BIN, '--data', data, 'worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  worker.stdout.on('data', (chunk) => (out += chunk));
  worker.stderr.on('data', (chunk) => (out += chunk));
  const workerExited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
  t.after(async () => {
    worker.kill('SIGKILL');
    await workerExited;
  });
  const status = await until('the worker to complete the task', async () => {
    const read = await send(api.url, 'GET', `/tasks/${taskId}`, { auth: key.json.raw });
    return read.json.data.status === 'pending' ? undefined : read.json.data.status;
  });
  assert.equal(status, 'completed');
  assert.match(out, /worker \S+:\d+:\w+ (working|started)/);
  worker.kill('SIGTERM');
  assert.equal(await workerExited, 0, out);
  api.child.kill('SIGTERM');
  assert.equal(await apiExited, 0);
});
