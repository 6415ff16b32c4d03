import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkLedger } from '../../../src/services/doctor.js';
import {
  checkDump,
  DumpError,
  type DumpRecord,
  readDump,
  StoreNotEmptyError,
  writeDump,
} from '../../../src/store/dump.js';
import { JsonStore } from '../../../src/store/file/json-store.js';
import type { Store } from '../../../src/store/store-contract.js';
import { fillStore, storeView } from '../../helpers/store-fixture.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { BACKENDS, jsonBackend, pgBackend } from './store-backends.js';

const secretsKey = new Uint8Array(randomBytes(32));

async function* fromArray(records: DumpRecord[]): AsyncGenerator<DumpRecord> {
  yield* records;
}

async function collect(iterable: AsyncIterable<DumpRecord>): Promise<DumpRecord[]> {
  const out: DumpRecord[] = [];
  for await (const record of iterable) out.push(record);
  return out;
}

test('file store → dump → PostgreSQL → dump → file store: every record equal through the Store API, ledger clean', async (t) => {
  const dir = await tempDir(t);
  const file = await jsonBackend.open(t);
  const fixture = await fillStore(file, secretsKey);
  const expected = await storeView(file, fixture);
  assert.ok((await checkLedger(file)).ok, 'the source ledger is clean');

  const first = join(dir, 'first.jsonl');
  const counts = await writeDump(first, file.records(), { from: 'file', exportedAt: new Date().toISOString() });
  assert.deepEqual(counts, {
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
  });
  assert.deepEqual((await checkDump(first)).counts, counts);

  const pgStore = await pgBackend.open(t);
  assert.deepEqual(await pgStore.load(readDump(first)), counts);
  assert.deepEqual(await storeView(pgStore, fixture), expected);
  const ledger = await checkLedger(pgStore);
  assert.deepEqual(ledger, { ok: true, problems: [], checked: { accounts: 2, tasks: 6, keys: 2 } });
  // The reserve of the pending tasks and the key's spend came along: alice holds 2.5 USD of pending estimates.
  assert.equal(await pgStore.tasks.reserved(fixture.accountIds.alice), 2_500_000);

  const second = join(dir, 'second.jsonl');
  assert.deepEqual(
    await writeDump(second, pgStore.records(), { from: 'postgres', exportedAt: new Date().toISOString() }),
    counts,
  );
  const backDir = await tempDir(t);
  const back = await JsonStore.open({ dir: backDir });
  assert.deepEqual(await back.load(readDump(second)), counts);
  assert.deepEqual(await storeView(back, fixture), expected);
  // Durable: a restart reads the same back, and the store takes writes again.
  await back.close();
  const reopened = await JsonStore.open({ dir: backDir });
  t.after(() => reopened.close());
  assert.deepEqual(await storeView(reopened, fixture), expected);
  assert.equal(reopened.writeFailure(), null);
  await reopened.accounts.credit({
    id: 'cr_after',
    accountId: fixture.accountIds.bob,
    amount: 1,
    createdAt: new Date().toISOString(),
  });
  // The two dumps hold the same records in the same order (fields may come in another order).
  const body = async (path: string) =>
    (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
  assert.deepEqual(await body(second), await body(first));
});

for (const backend of BACKENDS) {
  test(`${backend.name}: loading into a store that holds records is refused, naming them, and changes nothing`, async (t) => {
    const store = await backend.open(t);
    const fixture = await fillStore(store, secretsKey);
    const before = await storeView(store, fixture);
    const dump = await collect(store.records());
    let pulled = 0;
    const counting = (async function* () {
      for (const record of dump) {
        pulled += 1;
        yield record;
      }
    })();
    await assert.rejects(store.load(counting), (err: Error) => {
      assert.ok(err instanceof StoreNotEmptyError, String(err));
      assert.match(
        err.message,
        /it holds 2 accounts, 3 credits, 3 API keys, 6 tasks, 2 secrets, 1 webhook, 2 events, 4 deliveries, 1 destination/,
      );
      return true;
    });
    assert.equal(pulled, 0, 'refused before reading the dump');
    assert.deepEqual(await storeView(store, fixture), before);
    assert.equal(store.writeFailure(), null, 'the store still takes writes');
  });

  test(`${backend.name}: a load that fails part way stores nothing`, async (t) => {
    const source = await jsonBackend.open(t);
    await fillStore(source, secretsKey);
    const records = await collect(source.records());
    const fileDir = backend.name === 'file' ? await tempDir(t) : '';
    const target: Store = backend.name === 'file' ? await JsonStore.open({ dir: fileDir }) : await backend.open(t);
    const failing = (async function* () {
      yield* records.slice(0, 8);
      throw new DumpError('the dump is cut short');
    })();
    await assert.rejects(target.load(failing), /cut short/);
    if (backend.name === 'postgres') {
      assert.deepEqual(await target.accounts.list(), []);
      assert.deepEqual([...(await target.tasks.all())], []);
      // Nothing half-done is left in the way: the whole dump loads now.
      await target.load(fromArray(records));
      assert.equal((await target.accounts.list()).length, 2);
    } else {
      // Memory may hold part of it: the store refuses writes; the disk holds nothing of it.
      assert.match(target.writeFailure() ?? '', /an import failed/);
      await assert.rejects(
        target.accounts.create({ id: 'acc_x', name: 'x', balance: 0, createdAt: 'a', updatedAt: 'a' }),
        /an import failed/,
      );
      await target.close();
      assert.ok(!(await readdir(fileDir)).includes('snapshot.json'), 'no snapshot written');
      const reopened = await JsonStore.open({ dir: fileDir });
      t.after(() => reopened.close());
      assert.deepEqual(await reopened.accounts.list(), []);
    }
  });
}

test('a dump is checked line by line: cut short, lines lost, out of order, duplicated, foreign, or newer is refused', async (t) => {
  const dir = await tempDir(t);
  const source = await jsonBackend.open(t);
  await fillStore(source, secretsKey);
  const good = join(dir, 'good.jsonl');
  await writeDump(good, source.records(), { from: 'file', exportedAt: '2026-11-23T00:00:00.000Z' });
  const lines = (await readFile(good, 'utf8')).split('\n');
  assert.equal(lines.at(-1), '', 'ends with a newline');
  assert.deepEqual(JSON.parse(lines[0]), {
    imgtask: 'store-dump',
    version: 2,
    exportedAt: '2026-11-23T00:00:00.000Z',
    from: 'file',
  });
  assert.equal(JSON.parse(lines.at(-2)!).imgtask, 'store-dump-end');

  // A task moved up before the credits.
  const firstTask = lines.findIndex((line) => line.startsWith('{"kind":"task"'));
  const outOfOrder = [
    ...lines.slice(0, 3),
    lines[firstTask],
    ...lines.slice(3, firstTask),
    ...lines.slice(firstTask + 1),
  ];
  const variant = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const cases: [string, string, RegExp][] = [
    ['no trailer', lines.slice(0, -2).join('\n'), /cut short: it ends at line \d+ without its last line/],
    [
      'cut mid-line',
      (await readFile(good, 'utf8')).slice(0, 900),
      /is not JSON \(the file is damaged or cut short\)|cut short/,
    ],
    ['a line lost', [...lines.slice(0, 5), ...lines.slice(6)].join('\n'), /records are missing/],
    [
      'out of order',
      outOfOrder.join('\n'),
      /line 5: a credit record after the task records \(the file is out of order\)/,
    ],
    ['duplicated', [lines[0], lines[1], lines[1], ...lines.slice(2)].join('\n'), /appears twice/],
    [
      'unknown account',
      [lines[0], lines[2], ...lines.slice(3)].join('\n'),
      /names account acc_\w+, which the dump does not hold/,
    ],
    [
      'unknown kind',
      [lines[0], '{"kind":"widget","record":{"id":"w"}}', ...lines.slice(1)].join('\n'),
      /unknown kind "widget"/,
    ],
    [
      'bad money',
      [lines[0], lines[1].replace(/"balance":\d+/, '"balance":"lots"'), ...lines.slice(2)].join('\n'),
      /balance is not a whole number/,
    ],
    [
      'newer version',
      [lines[0].replace('"version":2', '"version":3'), ...lines.slice(1)].join('\n'),
      /version 3, newer than this imgtask reads \(2\)/,
    ],
    ['not a dump', '{"format":"imgtask-snapshot","version":2}\n', /not an imgtask store dump/],
    ['empty', '', /the file is empty/],
    ['after the end', `${lines.join('\n')}{"kind":"account","record":{}}\n`, /follows the dump's last line/],
  ];
  for (const [name, text, message] of cases) {
    const path = await variant(`${name.replace(/ /g, '-')}.jsonl`, text);
    await assert.rejects(checkDump(path), (err: Error) => {
      assert.ok(err instanceof DumpError, `${name}: ${err}`);
      assert.match(err.message, message, name);
      return true;
    });
  }
  assert.deepEqual((await checkDump(good)).header.version, 2);
});
