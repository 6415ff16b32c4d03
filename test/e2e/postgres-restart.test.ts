import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import { checkLedger } from '../../src/services/doctor.js';
import { migrate, PgStore } from '../../src/store/postgres/index.js';
import { type ApiResponse, send } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Two `serve` processes on a PostgreSQL server of this test's own (restarting the shared one
 * would cut every other test's sessions), under a create burst, through a fast restart of the
 * database and then an outage: the processes stay up, a request in flight gets 201 or 503
 * STORE_UNAVAILABLE with Retry-After (never a dropped connection or a 500), /ready says 503
 * while the database is away and 200 once it is back, creates and work resume by themselves,
 * and every create answered 201 is kept.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/fleet-process.ts');

interface Member {
  name: string;
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

function startMember(t: TestContext, name: string, dataDir: string, overrides: object): Promise<Member> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, 'all', JSON.stringify(overrides)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let out = '';
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const listening = /listening (http:\/\/\S+)/.exec(out);
      if (listening) resolve({ name, child, url: listening[1], exited, output: () => out });
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    exited.then((code) => reject(new Error(`${name} exited with ${code}: ${out}`)));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `fn` (an HTTP answer from another process: there is no event to wait on) until it answers a value. */
async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A 503 as the store answers it while the database is away: the flat error, with Retry-After. */
function assertUnavailable(res: ApiResponse): void {
  assert.equal(res.status, 503, res.text);
  assert.deepEqual(Object.keys(res.json as object).sort(), ['code', 'message']);
  assert.equal((res.json as { code: string }).code, 'STORE_UNAVAILABLE');
  assert.equal(res.headers.get('retry-after'), '1');
}

test('two serve processes on PostgreSQL live through a fast restart under a create burst and an outage: 201 or 503 with Retry-After, /ready follows the database, nothing acknowledged lost', async (t) => {
  let phase = Date.now();
  const pg = await startPostgresServer();
  t.after(() => pg.stop());
  await migrate(pg.url);
  const store = { driver: 'postgres', postgres: { url: pg.url, poolSize: 4 } };

  const seedDir = await tempDir(t);
  const seed = await openServices({ dataDir: seedDir, config: loadConfig({ env: {}, overrides: { store } }), log: () => undefined });
  const account = await seed.accounts.create('restart', 1000 * 1_000_000);
  const { raw: apiKey } = await seed.apiKeys.create({ accountId: account.id, name: 'restart' });
  await seed.close();
  const member = async (name: string) => {
    const dir = await tempDir(t);
    await cp(join(seedDir, 'keys'), join(dir, 'keys'), { recursive: true });
    return startMember(t, name, dir, { store, work: { defaultConcurrency: 4 } });
  };
  const members = await Promise.all([member('s1'), member('s2')]);
  const db = await PgStore.open({ url: pg.url, poolSize: 2 });
  t.after(() => db.close());
  t.diagnostic(`database and two serve processes started in ${Date.now() - phase} ms`);

  // 1. A burst of creates over both processes, the database restarted fast in the middle of it.
  const created: string[] = [];
  const refused: ApiResponse[] = [];
  const failures: string[] = [];
  let burst = true;
  const loops = Array.from({ length: 8 }, async (_, n) => {
    while (burst) {
      const target = members[n % 2];
      try {
        const res = await send(target.url, 'POST', '/test/tasks', { auth: apiKey, body: { items: 1 } });
        if (res.status === 201) created.push(res.json.data.taskId);
        else if (res.status === 503) refused.push(res);
        else failures.push(`${target.name}: ${res.status} ${res.text}`);
      } catch (err) {
        failures.push(`${target.name}: no answer (${(err as Error).cause ?? err})`);
      }
    }
  });
  try {
    await until('creates before the restart', async () => (created.length >= 30 ? true : undefined));
    const before = created.length;
    const restartedAt = Date.now();
    await pg.restart();
    const upAt = Date.now();
    t.diagnostic(`database restarted in ${upAt - restartedAt} ms after ${before} creates`);
    await until('creates after the restart', async () => (created.length >= before + 30 ? true : undefined)).catch((err: Error) => {
      throw new Error(`${err.message}; ${failures.length} without an answer; ${members.map((m) => `${m.name}: ${m.output().slice(-1500)}`).join('\n')}`);
    });
    t.diagnostic(`30 more creates ${Date.now() - upAt} ms after it was up`);
  } finally {
    burst = false;
    await Promise.all(loops);
  }
  t.diagnostic(`burst: ${created.length} created, ${refused.length} answered 503`);
  assert.deepEqual(failures.slice(0, 5), [], `every request in flight got 201 or 503; ${members.map((m) => `${m.name}: ${m.output().slice(-3000)}`).join('\n')}`);
  for (const res of refused) assertUnavailable(res);
  for (const m of members) assert.equal(m.child.exitCode, null, `${m.name} is still up: ${m.output().slice(-2000)}`);

  // 2. An outage: /ready says so on both, a create is refused 503; once it is back, both are ready and create again.
  phase = Date.now();
  await pg.pause();
  for (const m of members) {
    const ready = await until(`${m.name} /ready to answer 503`, async () => {
      const res = await send(m.url, 'GET', '/ready').catch((err: Error) => {
        throw new Error(`${m.name} did not answer (${err.cause ?? err}): ${m.output().slice(-3000)}`);
      });
      return res.status === 503 ? res : undefined;
    });
    assert.equal(ready.json.code, 'NOT_READY');
    assert.match(ready.json.message, /store: the database cannot be reached/);
    assertUnavailable(await send(m.url, 'POST', '/test/tasks', { auth: apiKey, body: { items: 1 } }));
  }
  t.diagnostic(`outage: both /ready answered 503 within ${Date.now() - phase} ms`);
  phase = Date.now();
  await pg.resume();
  for (const m of members) {
    await until(`${m.name} /ready to answer 200`, async () => ((await send(m.url, 'GET', '/ready')).status === 200 ? true : undefined));
    const res = await send(m.url, 'POST', '/test/tasks', { auth: apiKey, body: { items: 1 } });
    assert.equal(res.status, 201, res.text);
    created.push(res.json.data.taskId);
  }

  t.diagnostic(`back: both /ready answered 200 and created within ${Date.now() - phase} ms`);
  phase = Date.now();
  // 3. Every create answered 201 is there, and runs: the working processes claim again by themselves.
  for (const id of created) assert.ok(await db.tasks.get(id), `acknowledged create ${id} is in the database`);
  await until('every acknowledged task to settle', async () => ((await db.tasks.countPending()) === 0 ? true : undefined));
  t.diagnostic(`every one of ${created.length} acknowledged tasks settled ${Date.now() - phase} ms later`);
  assert.deepEqual((await checkLedger(db)).problems, []);
  for (const m of members) {
    assert.doesNotMatch(m.output(), /Unhandled|uncaught|DeprecationWarning|already executing a query/i, `${m.name}'s log`);
    m.child.kill('SIGTERM');
  }
  for (const m of members) assert.equal(await m.exited, 0, `${m.name} stops cleanly on SIGTERM: ${m.output().slice(-1000)}`);
});
