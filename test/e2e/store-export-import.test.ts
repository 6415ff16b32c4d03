import assert from 'node:assert/strict';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { prepareDataDir } from '../../src/app/data-dir.js';
import { writeDump } from '../../src/store/dump.js';
import { JsonStore } from '../../src/store/file/json-store.js';
import { migrate, PgStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store-contract.js';
import { runCli } from '../helpers/cli.js';
import { startFixture } from '../helpers/fixture-server.js';
import { eventually, send } from '../helpers/harness.js';
import { testDatabase } from '../helpers/postgres.js';
import { fillStore, type StoreFixture, storeView } from '../helpers/store-fixture.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const noStackTrace = (text: string) => assert.doesNotMatch(text, /^\s+at .+:\d+:\d+\)?$/m);

/** A stopped file data dir (keys made) holding the store fixture; answers it and the Store API's view of it. */
async function fileDataDir(t: TestContext) {
  const data = await tempDir(t);
  const { secretsKey } = await prepareDataDir(data);
  const store = await JsonStore.open({ dir: join(data, 'store') });
  const fixture = await fillStore(store, secretsKey);
  const view = await storeView(store, fixture);
  await store.close();
  return { data, fixture, view };
}

/** A fresh database with the schema applied. */
async function migratedDatabase(t: TestContext): Promise<string> {
  const url = await testDatabase(t);
  await migrate(url);
  return url;
}

async function withStore<T>(open: () => Promise<Store>, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const viewOfPg = (url: string, fixture: StoreFixture) =>
  withStore(
    () => PgStore.open({ url }),
    (store) => storeView(store, fixture),
  );
const viewOfFile = (data: string, fixture: StoreFixture) =>
  withStore(
    () => JsonStore.open({ dir: join(data, 'store') }),
    (store) => storeView(store, fixture),
  );

/** Every file of a folder with its bytes: to show that a refused import changed nothing. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = (await readFile(join(dir, name))).toString('base64');
  return out;
}

test('file data dir → export → import into PostgreSQL → export → import into an empty file data dir: doctor clean, every record equal, a server on it serves the same tasks and keys', async (t) => {
  const { data, fixture, view } = await fileDataDir(t);
  const dumps = await tempDir(t);
  const first = join(dumps, 'file.jsonl');
  const exported = await runCli(['--data', data, 'store', 'export', first, '--json']);
  assert.equal(exported.code, 0, exported.stderr);
  const counts = {
    account: 2,
    credit: 3,
    apiKey: 3,
    task: 6,
    secret: 2,
    webhook: 1,
    event: 2,
    delivery: 4,
    destination: 1,
    upload: 0,
  };
  assert.deepEqual(exported.json, { file: first, from: 'file', counts });

  // Into PostgreSQL: the same data dir (its keys open the sealed secrets), the database named by env.
  const url = await migratedDatabase(t);
  const pgEnv = { IMGTASK_DATABASE_URL: url };
  const imported = await runCli(['--data', data, 'store', 'import', first], pgEnv);
  assert.equal(imported.code, 0, imported.stderr);
  const [head, ledger, ...rest] = imported.stdout.trim().split('\n');
  assert.match(
    head,
    /^imported .*file\.jsonl into the database postgres:\/\/imgtask:\*\*\*@[^ ]+: 2 accounts, 3 credits, 3 API keys, 6 tasks, 2 secrets, 1 webhook, 2 events, 4 deliveries, 1 destination$/,
  );
  assert.equal(ledger, 'ledger ok: 2 accounts, 2 keys, 6 tasks checked');
  assert.deepEqual(rest, []);
  assert.deepEqual(await viewOfPg(url, fixture), view);
  const doctor = await runCli(['--data', data, 'doctor', '--json'], pgEnv);
  assert.equal(doctor.code, 0, doctor.stdout);
  assert.deepEqual(doctor.json.problems, []);

  // And back: PostgreSQL → an empty file data dir given the same keys.
  const second = join(dumps, 'postgres.jsonl');
  const again = await runCli(['--data', data, 'store', 'export', second, '--json'], pgEnv);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([again.json.from, again.json.counts], ['postgres', counts]);
  const back = await tempDir(t);
  await cp(join(data, 'keys'), join(back, 'keys'), { recursive: true });
  const loaded = await runCli(['--data', back, 'store', 'import', second, '--json']);
  assert.equal(loaded.code, 0, loaded.stderr);
  assert.deepEqual(loaded.json.counts, counts);
  assert.deepEqual(loaded.json.doctor, { ok: true, problems: [], checked: { accounts: 2, tasks: 6, keys: 2 } });
  assert.deepEqual(loaded.json.notes, []);
  assert.deepEqual(await viewOfFile(back, fixture), view);

  // A server on the database: the file store's keys authenticate, its tasks read the same, its pending tasks resume.
  const server = await startFixture(data, { store: { driver: 'postgres', postgres: { url } } });
  closeBeforeRemoval(data, async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const completed = await send(server.url, 'GET', `/tasks/${fixture.taskIds.completed}`, { auth: fixture.raw.live });
  assert.equal(completed.status, 200, completed.text);
  assert.equal(completed.json.data.status, 'completed');
  assert.equal(completed.json.data.cost, '1.5');
  const bobs = await send(server.url, 'GET', `/tasks/${fixture.taskIds.partial}`, { auth: fixture.raw.bob });
  assert.equal(bobs.status, 200, bobs.text);
  assert.equal(bobs.json.data.cost, '0.5');
  assert.equal(
    (await send(server.url, 'GET', `/tasks/${fixture.taskIds.completed}`, { auth: fixture.raw.revoked })).status,
    401,
    'the revoked key stays revoked',
  );
  assert.equal(
    (await send(server.url, 'GET', `/tasks/${fixture.taskIds.completed}`, { auth: fixture.raw.bob })).status,
    404,
    "another account's task",
  );
  let resumed: { status: string; cost: string } | undefined;
  await eventually(async () => {
    resumed = (await send(server.url, 'GET', `/tasks/${fixture.taskIds.pendingPrepared}`, { auth: fixture.raw.live }))
      .json.data;
    return resumed!.status !== 'pending';
  }, 20_000);
  // Item 0 was done before the move and is not run again: 3 items at 0.5 USD.
  assert.deepEqual([resumed!.status, resumed!.cost], ['completed', '1.5'], JSON.stringify(resumed));
  server.child.kill('SIGTERM');
  await server.exited;
  const after = await runCli(['--data', data, 'doctor'], pgEnv);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.match(after.stdout, /^ledger ok: 2 accounts, 2 keys, 6 tasks checked/);
});

test('import into a store that holds records is refused, naming what it holds, and changes nothing; export refuses a data dir a server holds', async (t) => {
  const { data, fixture, view } = await fileDataDir(t);
  const dump = join(await tempDir(t), 'dump.jsonl');
  assert.equal((await runCli(['--data', data, 'store', 'export', dump])).code, 0);
  const exportedAgain = await runCli(['--data', data, 'store', 'export', dump]);
  assert.equal(exportedAgain.code, 2, 'an existing file is not overwritten');
  assert.match(exportedAgain.stderr, /already exists: remove it or name another file/);

  const before = await filesOf(join(data, 'store'));
  const refused = await runCli(['--data', data, 'store', 'import', dump, '--json']);
  assert.equal(refused.code, 1);
  assert.match(
    refused.json.error.message,
    /^the target store is not empty: it holds 2 accounts, 3 credits, 3 API keys, 6 tasks, 2 secrets, 1 webhook, 2 events, 4 deliveries, 1 destination; import only into an empty store$/,
  );
  noStackTrace(refused.stderr);
  assert.deepEqual(await filesOf(join(data, 'store')), before);
  assert.deepEqual(await viewOfFile(data, fixture), view);

  // PostgreSQL holding one account: refused, still one account.
  const url = await migratedDatabase(t);
  await withStore(
    () => PgStore.open({ url }),
    (store) =>
      store.accounts.create({
        id: 'acc_existing',
        name: 'existing',
        balance: 0,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      }),
  );
  const refusedPg = await runCli(['--data', data, 'store', 'import', dump], { IMGTASK_DATABASE_URL: url });
  assert.equal(refusedPg.code, 1);
  assert.match(
    refusedPg.stderr,
    /^imgtask: the target store is not empty: it holds 1 account; import only into an empty store\n$/,
  );
  assert.deepEqual(
    await withStore(
      () => PgStore.open({ url }),
      async (store) => [(await store.accounts.list()).map((a) => a.id), [...(await store.tasks.all())].length],
    ),
    [['acc_existing'], 0],
  );

  // A server holding the file data dir: export is refused (its records would change under it).
  const server = await startFixture(data);
  closeBeforeRemoval(data, async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const busy = await runCli(['--data', data, 'store', 'export', join(await tempDir(t), 'busy.jsonl')]);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /process \d+ holds the data dir .*: stop the server before a store export/);
});

test('a cut-off dump, one with a line lost, and one of a newer version are refused and change nothing, in PostgreSQL and in a file data dir', async (t) => {
  const { data } = await fileDataDir(t);
  const dir = await tempDir(t);
  const good = join(dir, 'good.jsonl');
  await withStore(
    () => JsonStore.open({ dir: join(data, 'store') }),
    (store) => writeDump(good, store.records(), { from: 'file', exportedAt: new Date().toISOString() }),
  );
  const text = await readFile(good, 'utf8');
  const lines = text.trimEnd().split('\n');
  const variants: [string, string, RegExp][] = [
    [
      'cut.jsonl',
      text.slice(0, Math.floor(text.length * 0.6)),
      /(is not JSON \(the file is damaged or cut short\)|the dump is cut short)/,
    ],
    [
      'no-end.jsonl',
      `${lines.slice(0, -1).join('\n')}\n`,
      /the dump is cut short: it ends at line \d+ without its last line/,
    ],
    ['lost.jsonl', `${[...lines.slice(0, 9), ...lines.slice(10)].join('\n')}\n`, /records are missing/],
    [
      'newer.jsonl',
      `${[lines[0].replace('"version":2', '"version":7'), ...lines.slice(1)].join('\n')}\n`,
      /the dump is version 7, newer than this imgtask reads \(2\): import it with a newer imgtask/,
    ],
  ];
  const url = await migratedDatabase(t);
  const emptyDir = await tempDir(t);
  for (const [name, body, message] of variants) {
    const path = join(dir, name);
    await writeFile(path, body);
    const pg = await runCli(['--data', emptyDir, 'store', 'import', path], { IMGTASK_DATABASE_URL: url });
    assert.equal(pg.code, 1, `${name}: ${pg.stdout}`);
    assert.match(pg.stderr, message, name);
    noStackTrace(pg.stderr);
    const file = await runCli(['--data', emptyDir, 'store', 'import', path, '--json']);
    assert.equal(file.code, 1, `${name}: ${file.stdout}`);
    assert.match(file.json.error.message, message, name);
  }
  assert.deepEqual(
    await withStore(
      () => PgStore.open({ url }),
      async (store) => [
        (await store.accounts.list()).length,
        [...(await store.tasks.all())].length,
        (await store.secrets.list()).length,
      ],
    ),
    [0, 0, 0],
  );
  assert.ok(!(await readdir(join(emptyDir, 'store'))).includes('snapshot.json'), 'no snapshot written');
  // The good dump still loads into both afterwards.
  assert.equal((await runCli(['--data', emptyDir, 'store', 'import', good], { IMGTASK_DATABASE_URL: url })).code, 0);
  assert.equal((await runCli(['--data', emptyDir, 'store', 'import', good])).code, 0);
});
