import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { openServices } from '../../src/app/services.js';
import { loadConfig } from '../../src/config/load.js';
import { checkLedger } from '../../src/services/doctor.js';
import { migrate, PgStore } from '../../src/store/postgres/postgres-store.js';
import type { TaskRecord } from '../../src/store/records.js';
import { countBy } from '../helpers/counts.js';
import { startMember, until } from '../helpers/fleet.js';
import { type ApiResponse, send } from '../helpers/harness.js';
import { testDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Faults and races across a fleet of three `serve` processes on one PostgreSQL database, as real
 * child processes: money and a key's spending limit stay exact when hundreds of creates race
 * over all three, and a process killed (SIGKILL) in the middle of a create burst loses none of
 * the creates it answered, leaves no charge behind for those it did not, and its leased tasks
 * are claimed and settled by the others. What is pinned is what a client and the ledger see,
 * not how the creates are committed (one by one or grouped).
 */
const LEASE_MS = 1500;
const PRICE = 250_000; // 0.25 USD, one item per task
const USD = 1_000_000;

const metadataN = (task: TaskRecord): number | undefined => (task.request as { metadata?: { n?: number } }).metadata?.n;

/** The flat error of src/domain/errors.ts with its status. */
function assertRefused(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.json as object).sort(), ['code', 'message']);
  assert.equal((res.json as { code: string }).code, code);
}

async function startFleet(t: TestContext) {
  const url = await testDatabase(t);
  await migrate(url);
  const store = { driver: 'postgres', postgres: { url, poolSize: 4 } };
  // The accounts and keys, made once; every process gets a copy of the seed's keys.
  const seedDir = await tempDir(t);
  const seed = (
    await openServices({
      dataDir: seedDir,
      config: loadConfig({ env: {}, overrides: { store } }),
      log: () => undefined,
    })
  ).internals;
  const plenty = await seed.accounts.create('plenty', 1000 * USD);
  const tight = await seed.accounts.create('tight', 50 * PRICE);
  const limited = await seed.accounts.create('limited', 1000 * USD);
  const keys = {
    plenty: (await seed.apiKeys.create({ accountId: plenty.id, name: 'plenty' })).raw,
    tight: (await seed.apiKeys.create({ accountId: tight.id, name: 'tight' })).raw,
    limited: (
      await seed.apiKeys.create({
        accountId: limited.id,
        name: 'limited',
        spendingLimit: 50 * PRICE,
        spendingLimitPeriod: 'month',
      })
    ).raw,
  };
  await seed.close();

  const overrides = { store, work: { leaseMs: LEASE_MS, defaultConcurrency: 8 } };
  const members = await Promise.all(['s1', 's2', 's3'].map((name) => startMember(t, name, seedDir, 'all', overrides)));
  const db = await PgStore.open({ url, poolSize: 2 });
  t.after(() => db.close());
  const accountTasks = async (accountId: string) =>
    [...(await db.tasks.all())].filter((task) => task.accountId === accountId);
  return { db, members, keys, accounts: { plenty, tight, limited }, accountTasks };
}

test('three serve processes on one database: exact money and key limits under racing creates; a process killed mid-burst loses no answered create, charges none it did not answer, and its leased tasks settle elsewhere', async (t) => {
  let phase = Date.now();
  const { db, members, keys, accounts, accountTasks } = await startFleet(t);
  t.diagnostic(`three serve processes started in ${Date.now() - phase} ms`);

  await t.test(
    '200 creates over 3 processes against a balance for 50, and 200 against a key limit for 50, at once: exactly 50 each, balances exact',
    async () => {
      phase = Date.now();
      const body = (n: number) => ({ items: 1, price: '0.25', metadata: { n } });
      const race = (key: string, count: number, offset: number) =>
        Array.from({ length: count }, (_, n) =>
          send(members[n % 3].url, 'POST', '/test/tasks', { auth: key, body: body(offset + n) }),
        );
      // The three accounts' creates interleave, so any grouping of creates mixes accounts.
      const [tight, limited, plenty] = await Promise.all([
        Promise.all(race(keys.tight, 200, 0)),
        Promise.all(race(keys.limited, 200, 1000)),
        Promise.all(race(keys.plenty, 60, 2000)),
      ]);
      t.diagnostic(`460 racing creates answered in ${Date.now() - phase} ms`);

      assert.equal(
        tight.filter((res) => res.status === 201).length,
        50,
        `balance for 50: ${tight.map((res) => res.status).join(' ')}`,
      );
      for (const res of tight.filter((res) => res.status !== 201)) assertRefused(res, 422, 'INSUFFICIENT_BALANCE');
      assert.equal(
        limited.filter((res) => res.status === 201).length,
        50,
        `key limit for 50: ${limited.map((res) => res.status).join(' ')}`,
      );
      for (const res of limited.filter((res) => res.status !== 201)) assertRefused(res, 429, 'SPENDING_LIMIT_EXCEEDED');
      assert.deepEqual(
        new Set(plenty.map((res) => res.status)),
        new Set([201]),
        'an account with room is refused nothing',
      );

      // Exactly the answered creates are stored: the same ids, none from a refused request.
      const createdIds = (answers: ApiResponse[]) =>
        answers.filter((res) => res.status === 201).map((res) => res.json.data.taskId as string);
      for (const [name, answers] of [
        ['tight', tight],
        ['limited', limited],
        ['plenty', plenty],
      ] as const) {
        const stored = await accountTasks(accounts[name].id);
        assert.deepEqual(
          stored.map((task) => task.id).sort(),
          createdIds(answers).sort(),
          `${name}: the stored tasks are the answered creates`,
        );
      }

      await until('the raced tasks to settle', async () => ((await db.tasks.countPending()) === 0 ? true : undefined));
      t.diagnostic(`and settled ${Date.now() - phase} ms after the race began`);
      const tightAccount = (await db.accounts.get(accounts.tight.id))!;
      assert.equal(tightAccount.balance, 0, 'the 50 tasks spent the whole balance, once each');
      const limitedAccount = (await db.accounts.get(accounts.limited.id))!;
      assert.equal(limitedAccount.balance, 1000 * USD - 50 * PRICE, 'the key spent its whole limit, once per task');
      assert.equal((await db.accounts.get(accounts.plenty.id))!.balance, 1000 * USD - 60 * PRICE);
      for (const account of Object.values(accounts)) assert.equal(await db.tasks.reserved(account.id), 0);
      assert.deepEqual((await checkLedger(db)).problems, []);
      // Nothing left over: one more create is refused on each, by whichever process.
      assertRefused(
        await send(members[1].url, 'POST', '/test/tasks', { auth: keys.tight, body: body(9000) }),
        422,
        'INSUFFICIENT_BALANCE',
      );
      assertRefused(
        await send(members[2].url, 'POST', '/test/tasks', { auth: keys.limited, body: body(9001) }),
        429,
        'SPENDING_LIMIT_EXCEEDED',
      );
    },
  );

  await t.test(
    'SIGKILL of a serve process in a create burst: every create it answered is stored and settles once, none it did not answer is charged, its leased tasks are claimed by the others',
    async () => {
      phase = Date.now();
      const [, victim] = members;
      const survivors = members.filter((m) => m !== victim);
      const before = (await accountTasks(accounts.plenty.id)).length;
      const creditLeft = (await db.accounts.get(accounts.plenty.id))!.balance;

      // Every fourth create is a slow task (its item runs 2 s): the victim is killed while one of
      // those runs in it, so it dies holding a lease on a task whose item has not finished.
      const SLOW_MS = 2000;
      const answers = new Map<number, { member: string; status: number | 'no answer'; taskId?: string }>();
      const slowIds = new Set<string>();
      const startedOnVictim = new Map<string, number>();
      let victimAnswered = 0;
      let killedWith: string | undefined;
      let afterKill = 0;
      const maybeKill = () => {
        if (killedWith || victimAnswered < 8) return;
        // A slow item that started here less than 1 s ago is still running (a guard, not a measure).
        const running = [...startedOnVictim].find(([id, at]) => slowIds.has(id) && Date.now() - at < SLOW_MS / 2);
        if (!running) return;
        killedWith = running[0];
        victim.child.kill('SIGKILL');
      };
      const stopTracing = victim.onItem((item) => {
        startedOnVictim.set(item.split(':')[0], Date.now());
        maybeKill();
      });
      let next = 3000;
      /** Why a create got no answer (the fetch error's cause), for the failure message. */
      const failures = new Map<number, string>();
      // Bounded, so a fleet that never runs a slow item in the victim fails here rather than hangs.
      const burstEnds = Date.now() + 30_000;
      const loops = Array.from({ length: 12 }, async (_, loop) => {
        while (afterKill < 30 && next < 4200 && Date.now() < burstEnds) {
          const n = next++;
          // Spread over the processes; once the victim is dead, over the others (as a load balancer would).
          const live = killedWith ? survivors : members;
          const target = live[(n + loop) % live.length];
          const slow = n % 4 === 0;
          const res = await send(target.url, 'POST', '/test/tasks', {
            auth: keys.plenty,
            body: { items: 1, price: '0.25', delayMs: slow ? SLOW_MS : 0, metadata: { n } },
          }).catch((err: Error & { cause?: { code?: string; message?: string } }) => {
            failures.set(n, err.cause?.code ?? err.cause?.message ?? err.message);
            return undefined;
          });
          answers.set(n, {
            member: target.name,
            status: res?.status ?? 'no answer',
            taskId: res?.status === 201 ? res.json.data.taskId : undefined,
          });
          if (res?.status !== 201) continue;
          if (slow) slowIds.add(res.json.data.taskId);
          if (killedWith) afterKill++;
          else if (target === victim) victimAnswered++;
          maybeKill();
        }
      });
      await Promise.all(loops);
      stopTracing();
      const victimStatuses = [...answers.values()].filter((a) => a.member === victim.name).map((a) => a.status);
      assert.ok(
        killedWith,
        `the victim was killed while running a slow item (it answered ${victimAnswered} creates 201; its answers: ${JSON.stringify(countBy(victimStatuses))}; ${startedOnVictim.size} items started in it)`,
      );
      await victim.exited;
      // The tasks the victim held and had not settled when it died: its leases, left to expire.
      // (The slow one it was running is among them, unless its lease lapsed and another process
      // took it over before the kill: either way it must run elsewhere and settle, checked below.)
      const orphans = (await Promise.all([...startedOnVictim.keys()].map((id) => db.tasks.get(id))))
        .filter((task) => task?.status === 'pending')
        .map((task) => task!.id);
      if (!orphans.includes(killedWith)) orphans.push(killedWith);

      const all = [...answers.values()];
      const acknowledged = all.filter((a) => a.status === 201);
      const unanswered = [...answers].filter(([, a]) => a.status === 'no answer').map(([n]) => n);
      assert.ok(
        all.every((a) => a.status === 201 || a.status === 'no answer'),
        `every create was answered 201 or not at all: ${all.filter((a) => a.status !== 201 && a.status !== 'no answer').map((a) => `${a.member} ${a.status}`)}`,
      );
      assert.ok(
        unanswered.every((n) => answers.get(n)!.member === victim.name),
        `only the killed process left creates unanswered: ${unanswered
          .filter((n) => answers.get(n)!.member !== victim.name)
          .map((n) => `${answers.get(n)!.member} (${failures.get(n)})`)
          .join(', ')}`,
      );

      const burstTasks = async () =>
        (await accountTasks(accounts.plenty.id)).filter((task) => (metadataN(task) ?? 0) >= 3000);
      await until('every stored task of the burst to settle', async () =>
        (await burstTasks()).every((task) => task.status !== 'pending') ? true : undefined,
      );
      t.diagnostic(
        `${victim.name} answered ${victimAnswered} creates, then was killed running ${orphans.length} unsettled task(s); ${acknowledged.length} creates answered in all, ${unanswered.length} unanswered; all settled ${Date.now() - phase} ms after the burst began`,
      );

      // Its leased tasks were claimed again by the others: each ran there, and completed (below).
      for (const id of orphans) {
        assert.ok(
          survivors.some((m) => m.items().some((item) => item.startsWith(`${id}:0:`))),
          `task ${id}, held by the killed process, ran again on ${survivors.map((m) => m.name)}`,
        );
      }

      // Every answered create is stored, completed and charged its one item once.
      const stored = await burstTasks();
      const byN = new Map(stored.map((task) => [metadataN(task)!, task]));
      assert.equal(byN.size, stored.length, 'one task per request');
      for (const [n, answer] of answers) {
        if (answer.status !== 201) continue;
        const task = byN.get(n);
        assert.equal(task?.id, answer.taskId, `answered create ${n} is stored under the id it was answered with`);
      }
      for (const task of stored) {
        assert.equal(task.status, 'completed', `${task.id}: ${JSON.stringify(task.errors)}`);
        assert.equal(task.cost, PRICE, `${task.id} is charged its one item once`);
      }
      // A task no one was told of is one whose create was in flight when the process died (committed
      // before the kill, its answer lost): a whole task, charged as any other. No refused request,
      // and no request that never reached a process, has a task or a charge.
      const untold = stored
        .filter((task) => answers.get(metadataN(task)!)?.status !== 201)
        .map((task) => metadataN(task)!);
      assert.ok(
        untold.every((n) => unanswered.includes(n)),
        `tasks without a 201 belong to creates in flight at the kill: ${untold}`,
      );
      t.diagnostic(`${untold.length} of the ${unanswered.length} unanswered creates had committed before the kill`);

      // The ledger reconciles exactly: credits − charges = balance, nothing reserved, doctor clean.
      const account = (await db.accounts.get(accounts.plenty.id))!;
      assert.equal((await accountTasks(accounts.plenty.id)).length, before + stored.length);
      assert.equal(
        account.balance,
        creditLeft - stored.length * PRICE,
        'charged once for each stored task, and for nothing else',
      );
      assert.equal(await db.tasks.reserved(accounts.plenty.id), 0);
      assert.deepEqual((await checkLedger(db)).problems, []);
      for (const m of survivors) assert.equal(m.child.exitCode, null, `${m.name} is still up`);
    },
  );

  for (const m of members.filter((m) => m.child.exitCode === null && m.child.signalCode === null))
    m.child.kill('SIGTERM');
  for (const m of members.filter((m) => m.child.signalCode !== 'SIGKILL'))
    assert.equal(await m.exited, 0, `${m.name} stops cleanly on SIGTERM: ${m.output().slice(-1000)}`);
});
