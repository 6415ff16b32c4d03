import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAppError } from '../../../../../src/domain/errors.js';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { type FillableFs, fillableFs } from '../../../../helpers/full-disk.js';
import { tempDir } from '../../../../helpers/temp-dir.js';

const at = '2026-11-22T08:00:00.000Z';
const account = (n: number) => ({ id: `acc_${n}`, name: `user${n}`, balance: 0, createdAt: at, updatedAt: at });
const credit = (n: number, accountId: string, amount: number) => ({ id: `crd_${n}`, accountId, amount, createdAt: at });
const key = (n: number, accountId: string) => ({
  id: `key_${n}`,
  accountId,
  hash: `h${n}`,
  preview: 'mak_x',
  scopes: ['tasks:read'],
  spendingLimitPeriod: 'month' as const,
  createdAt: at,
});
const webhook = (n: number, accountId: string) => ({
  id: `wh_${n}`,
  accountId,
  url: `https://example.com/${n}`,
  enabled: true,
  events: null,
  apiKeyIds: [],
  sealedSecret: 's',
  createdAt: at,
  updatedAt: at,
});

const dump = (store: JsonStore) => store.engine.state.collections().map((c) => [c.name, c.capture()]);
/** What the API lists: live keys, webhooks and credits in their listing order. */
const listings = async (store: JsonStore) => ({
  keys: (await store.apiKeys.listLive('acc_0')).map((k) => k.id),
  webhooks: (await store.webhooks.listByAccount('acc_0')).map((w) => w.id),
  credits: (await store.accounts.credits('acc_0')).map((c) => c.id),
});

const isStorageFull = (err: unknown) =>
  isAppError(err) && err.code === 'STORAGE_FULL' && err.status === 507 && err.headers?.['retry-after'] !== undefined;

/**
 * `promise`, or a failure after `ms`: the probe timer is unref'd, so a test waiting on it must hold the event loop open
 * itself.
 */
async function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`not resumed within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens a store over `disk`, and a promise of its next resumption. */
async function openOn(dir: string, disk: FillableFs, logs: string[] = []) {
  let resumed: () => void = () => {};
  const store = await JsonStore.open({
    dir,
    fs: disk,
    retryEveryMs: 10,
    snapshotOnClose: false,
    log: (m) => logs.push(m),
    onResume: () => resumed(),
  });
  const nextResume = () => new Promise<void>((resolve) => (resumed = resolve));
  return { store, nextResume };
}

test('a journal write that fails for lack of space undoes its change and every later one, answers 507, and resumes by itself', async (t) => {
  const dir = await tempDir(t);
  const disk = fillableFs();
  const logs: string[] = [];
  const { store, nextResume } = await openOn(dir, disk, logs);
  await store.accounts.create(account(0));
  await store.accounts.credit(credit(1, 'acc_0', 100));
  const acknowledged = dump(store);

  disk.room = 0;
  const resumed = nextResume();
  // One batch: a new account and a credit to an existing one, both applied in memory before the write fails.
  const outcomes = await Promise.allSettled([
    store.accounts.create(account(1)),
    store.accounts.credit(credit(2, 'acc_0', 50)),
  ]);
  for (const outcome of outcomes)
    assert.ok(
      outcome.status === 'rejected' && isStorageFull(outcome.reason),
      'each write of the failed batch answers 507 STORAGE_FULL',
    );
  assert.deepEqual(dump(store), acknowledged, 'memory holds again exactly what the disk holds');
  assert.equal((await store.accounts.get('acc_0'))?.balance, 100);
  assert.match(store.writeFailure() ?? '', /out of space/);
  await assert.rejects(store.accounts.create(account(2)), isStorageFull, 'while refused, a write answers 507 at once');
  assert.ok(
    logs.some((line) => /lack of space.*2 change\(s\) undone/.test(line)),
    logs.join('\n'),
  );

  disk.room = null;
  await within(resumed);
  assert.equal(store.writeFailure(), null);
  await store.accounts.create(account(3));
  const final = dump(store);
  await store.close();

  const reopened = await JsonStore.open({ dir });
  t.after(() => reopened.close());
  assert.deepEqual(
    dump(reopened),
    final,
    'a restart loads exactly what memory held: the acknowledged writes, none of the refused ones',
  );
  assert.equal(await reopened.accounts.get('acc_1'), undefined);
});

test('a batch cut short by a full disk is truncated away: no refused record is ever replayed', async (t) => {
  const dir = await tempDir(t);
  const disk = fillableFs();
  const logs: string[] = [];
  const { store, nextResume } = await openOn(dir, disk, logs);
  await store.accounts.create(account(0));
  const journal = join(dir, 'journal.jsonl');
  const good = await readFile(journal);

  // Room for part of the batch: whole lines of it land before the write fails.
  disk.room = 300;
  const resumed = nextResume();
  const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => store.accounts.create(account(n))));
  assert.ok(outcomes.every((o) => o.status === 'rejected'));
  assert.deepEqual(await readFile(journal), good, 'the journal is cut back to its last durable record');
  disk.room = null;
  await within(resumed);
  await store.accounts.create(account(9));
  await store.close();

  const reopenLogs: string[] = [];
  const reopened = await JsonStore.open({ dir, log: (m) => reopenLogs.push(m) });
  t.after(() => reopened.close());
  assert.deepEqual(
    reopened.engine.state.accounts.capture().map((a) => a.id),
    ['acc_0', 'acc_9'],
  );
  assert.deepEqual(
    reopenLogs.filter((m) => /torn|dropped/.test(m)),
    [],
    'no torn tail to drop',
  );
});

test('undone deletes and revocations keep every listing in the order a restart loads', async (t) => {
  const dir = await tempDir(t);
  const disk = fillableFs();
  const { store, nextResume } = await openOn(dir, disk);
  await store.accounts.create(account(0));
  for (const n of [1, 2, 3]) await store.apiKeys.create(key(n, 'acc_0'), { maxLive: 100 });
  for (const n of [1, 2, 3]) await store.webhooks.put(webhook(n, 'acc_0'));
  for (const n of [1, 2, 3]) await store.accounts.credit(credit(n, 'acc_0', n));
  const before = { dump: dump(store), listings: await listings(store) };

  disk.room = 0;
  const resumed = nextResume();
  const outcomes = await Promise.allSettled([
    store.webhooks.delete('wh_1'),
    store.apiKeys.revoke('key_1', at),
    store.webhooks.put(webhook(4, 'acc_0')),
    store.accounts.credit(credit(4, 'acc_0', 4)),
    store.webhooks.delete('wh_2'),
  ]);
  assert.ok(outcomes.every((o) => o.status === 'rejected' && isStorageFull(o.reason)));
  assert.deepEqual(await listings(store), before.listings);
  assert.deepEqual(dump(store), before.dump);
  disk.room = null;
  await within(resumed);
  await store.close();

  const reopened = await JsonStore.open({ dir });
  t.after(() => reopened.close());
  assert.deepEqual(await listings(reopened), before.listings);
  assert.deepEqual(dump(reopened), before.dump);
});

test('a snapshot that cannot be written for lack of space leaves no temp file, and a later one folds the journals', async (t) => {
  const dir = await tempDir(t);
  const disk = fillableFs();
  const logs: string[] = [];
  const { store } = await openOn(dir, disk, logs);
  for (let n = 0; n < 20; n++) await store.accounts.create(account(n));

  // Room for the journal cut but not for the snapshot.
  disk.room = 1000;
  await store.engine.snapshot();
  assert.ok(
    logs.some((m) => /snapshot failed, journal kept/.test(m)),
    logs.join('\n'),
  );
  assert.deepEqual(
    (await readdir(dir)).filter((name) => name.endsWith('.tmp')),
    [],
    'the snapshot temp file is gone',
  );
  assert.ok((await readdir(dir)).includes('journal.old.jsonl'));
  disk.room = null;
  await store.accounts.create(account(99));
  await store.engine.snapshot();
  assert.ok(
    logs.some((m) => /snapshot written after the earlier one failed/.test(m)),
    logs.join('\n'),
  );
  assert.equal((await readdir(dir)).includes('journal.old.jsonl'), false, 'the journals are folded into a snapshot');
  await store.accounts.create(account(100));
  const state = dump(store);
  await store.close();

  const reopened = await JsonStore.open({ dir });
  t.after(() => reopened.close());
  assert.deepEqual(dump(reopened), state, 'snapshot and journal hold everything');
});

test('a failed commit of an op that throws midway leaves memory as it was', async (t) => {
  const dir = await tempDir(t);
  const store = await JsonStore.open({ dir, snapshotOnClose: false });
  t.after(() => store.close());
  await store.accounts.create(account(0));
  const before = dump(store);
  // account.credit puts the credit, then reads the account: a credit to an unknown account throws after the first put.
  assert.throws(() => store.engine.commit('account.credit', credit(1, 'acc_missing', 5)));
  assert.deepEqual(dump(store), before);
  assert.equal(store.engine.lastSeq, 1);
});
