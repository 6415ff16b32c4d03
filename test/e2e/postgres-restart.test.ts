import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import { checkLedger } from '../../src/services/doctor.js';
import { migrate, PgStore } from '../../src/store/postgres/postgres-store.js';
import { startMember } from '../helpers/fleet.js';
import { type ApiResponse, send } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Two `serve` processes on a PostgreSQL server of this test's own (restarting the shared one
 * would cut every other test's sessions), under a create burst, through a fast restart of the
 * database and then an outage: the processes stay up, a request in flight gets 201 or 503
 * STORE_UNAVAILABLE with Retry-After (never a dropped connection or a 500), /ready says 503
 * while the database is away and 200 once it is back, creates and work resume by themselves,
 * every create answered 201 is kept and none answered 503 is, the tasks leased when the
 * database went away settle once, and the ledger reconciles exactly.
 */
const LEASE_MS = 1500;
const PRICE = 10_000; // the test task's default 0.01 USD, one item per task
const SLOW_MS = 1500;

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

test('two serve processes on PostgreSQL live through a fast restart under a create burst and an outage: 201 or 503 with Retry-After, /ready follows the database, nothing acknowledged lost, leased tasks settle once, the ledger exact', async (t) => {
  let phase = Date.now();
  const pg = await startPostgresServer();
  t.after(() => pg.stop());
  await migrate(pg.url);
  const store = { driver: 'postgres', postgres: { url: pg.url, poolSize: 4 } };

  const seedDir = await tempDir(t);
  const seed = (
    await openServices({
      dataDir: seedDir,
      config: loadConfig({ env: {}, overrides: { store } }),
      log: () => undefined,
    })
  ).internals;
  const credit = 1000 * 1_000_000;
  const account = await seed.accounts.create('restart', credit);
  const { raw: apiKey } = await seed.apiKeys.create({ accountId: account.id, name: 'restart' });
  await seed.close();
  const overrides = { store, work: { defaultConcurrency: 4, leaseMs: LEASE_MS } };
  const members = await Promise.all(['s1', 's2'].map((name) => startMember(t, name, seedDir, 'all', overrides)));
  const db = await PgStore.open({ url: pg.url, poolSize: 2 });
  t.after(() => db.close());
  t.diagnostic(`database and two serve processes started in ${Date.now() - phase} ms`);

  // Every create carries its number: what was stored is matched against what was answered.
  const answers = new Map<number, { status: number; taskId?: string }>();
  let next = 0;
  const create = async (url: string, delayMs = 0) => {
    const n = next++;
    const res = await send(url, 'POST', '/test/tasks', { auth: apiKey, body: { items: 1, delayMs, metadata: { n } } });
    answers.set(n, { status: res.status, taskId: res.status === 201 ? res.json.data.taskId : undefined });
    return res;
  };

  // Items started, by task, as the processes print them: every fourth create of the burst is
  // slow, so the database goes away while leased tasks have items running.
  const started = new Map<string, number>();
  for (const m of members) m.onItem((item) => started.set(item.split(':')[0], Date.now()));
  const slowIds = new Set<string>();

  // 1. A burst of creates over both processes, the database restarted fast in the middle of it.
  const created: string[] = [];
  const refused: ApiResponse[] = [];
  const failures: string[] = [];
  let burst = true;
  const loops = Array.from({ length: 8 }, async (_, n) => {
    while (burst) {
      const target = members[n % 2];
      const slow = next % 4 === 0;
      try {
        const res = await create(target.url, slow ? SLOW_MS : 0);
        if (res.status === 201) {
          created.push(res.json.data.taskId);
          if (slow) slowIds.add(res.json.data.taskId);
        } else if (res.status === 503) refused.push(res);
        else failures.push(`${target.name}: ${res.status} ${res.text}`);
      } catch (err) {
        failures.push(`${target.name}: no answer (${(err as Error).cause ?? err})`);
      }
    }
  });
  let held: string[] = [];
  try {
    // Restarted while a slow item that started less than half its time ago still runs (a guard, not a measure).
    await until('creates, and a slow item running, before the restart', async () =>
      created.length >= 30 && [...started].some(([id, at]) => slowIds.has(id) && Date.now() - at < SLOW_MS / 2)
        ? true
        : undefined,
    );
    // The tasks leased now: started somewhere and not settled.
    held = (await Promise.all([...started.keys()].map((id) => db.tasks.get(id))))
      .filter((task) => task?.status === 'pending')
      .map((task) => task!.id);
    const before = created.length;
    const restartedAt = Date.now();
    await pg.restart();
    const upAt = Date.now();
    t.diagnostic(
      `database restarted in ${upAt - restartedAt} ms after ${before} creates, with ${held.length} leased task(s) running`,
    );
    await until('creates after the restart', async () => (created.length >= before + 30 ? true : undefined)).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}; ${failures.length} without an answer; ${members.map((m) => `${m.name}: ${m.output().slice(-1500)}`).join('\n')}`,
        );
      },
    );
    t.diagnostic(`30 more creates ${Date.now() - upAt} ms after it was up`);
  } finally {
    burst = false;
    await Promise.all(loops);
  }
  t.diagnostic(`burst: ${created.length} created, ${refused.length} answered 503`);
  assert.deepEqual(
    failures.slice(0, 5),
    [],
    `every request in flight got 201 or 503; ${members.map((m) => `${m.name}: ${m.output().slice(-3000)}`).join('\n')}`,
  );
  for (const res of refused) assertUnavailable(res);
  for (const m of members) assert.equal(m.child.exitCode, null, `${m.name} is still up: ${m.output().slice(-2000)}`);
  assert.ok(held.length > 0, 'the database went away while leased tasks ran');

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
    assertUnavailable(await create(m.url));
  }
  t.diagnostic(`outage: both /ready answered 503 within ${Date.now() - phase} ms`);
  phase = Date.now();
  await pg.resume();
  for (const m of members) {
    await until(`${m.name} /ready to answer 200`, async () =>
      (await send(m.url, 'GET', '/ready')).status === 200 ? true : undefined,
    );
    const res = await create(m.url);
    assert.equal(res.status, 201, res.text);
    created.push(res.json.data.taskId);
  }

  t.diagnostic(`back: both /ready answered 200 and created within ${Date.now() - phase} ms`);
  phase = Date.now();
  // 3. Every create answered 201 is there, and runs: the working processes claim again by themselves.
  for (const id of created) assert.ok(await db.tasks.get(id), `acknowledged create ${id} is in the database`);
  await until('every acknowledged task to settle', async () =>
    (await db.tasks.countPending()) === 0 ? true : undefined,
  );
  t.diagnostic(`every one of ${created.length} acknowledged tasks settled ${Date.now() - phase} ms later`);

  // Exactly the creates answered 201 are stored (none answered 503), each completed and charged its item once;
  // the tasks leased when the database went away among them.
  const stored = [...(await db.tasks.all())];
  const storedByN = new Map(stored.map((task) => [(task.request as { metadata: { n: number } }).metadata.n, task]));
  assert.equal(storedByN.size, stored.length, 'one task per create');
  for (const [n, answer] of answers) {
    if (answer.status === 201)
      assert.equal(storedByN.get(n)?.id, answer.taskId, `create ${n} answered 201 is stored under its id`);
    else assert.equal(storedByN.get(n), undefined, `create ${n} answered ${answer.status} is not stored`);
  }
  for (const task of stored) {
    assert.equal(task.status, 'completed', `${task.id}: ${JSON.stringify(task.errors)}`);
    assert.equal(task.cost, PRICE, `${task.id} is charged its one item once`);
  }
  for (const id of held)
    assert.equal(
      stored.find((task) => task.id === id)?.status,
      'completed',
      `task ${id}, leased when the database went away, completed`,
    );
  const items = members.flatMap((m) => m.items());
  const ranAgain = held.filter((id) => items.filter((item) => item.startsWith(`${id}:`)).length > 1).length;
  t.diagnostic(
    `of the ${held.length} tasks leased at the restart, ${ranAgain} ran their item again (the lease lapsed and was claimed anew), the rest finished where they ran`,
  );

  // The ledger reconciles exactly: credits − charges = balance, nothing reserved, the doctor's check clean.
  assert.equal((await db.accounts.get(account.id))!.balance, credit - stored.length * PRICE);
  assert.equal(await db.tasks.reserved(account.id), 0);
  assert.deepEqual((await checkLedger(db)).problems, []);
  for (const m of members) {
    assert.doesNotMatch(
      m.output(),
      /Unhandled|uncaught|DeprecationWarning|already executing a query/i,
      `${m.name}'s log`,
    );
    m.child.kill('SIGTERM');
  }
  for (const m of members)
    assert.equal(await m.exited, 0, `${m.name} stops cleanly on SIGTERM: ${m.output().slice(-1000)}`);
});
