import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { checkLedger } from '../../../src/services/doctor.js';
import { readDump, writeDump } from '../../../src/store/dump.js';
import type { ApiKeyRecord } from '../../../src/store/records/api-keys.js';
import type { ItemRecord, TaskRecord } from '../../../src/store/records/tasks.js';
import type { UploadRecord } from '../../../src/store/records/uploads.js';
import type { DeliveryRecord, EventRecord } from '../../../src/store/records/webhooks.js';
import type { Store } from '../../../src/store/store-contract.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { BACKENDS, type Backend } from './store-backends.js';

/**
 * The Store contract of data that can be removed (issue 40), run against every backend like
 * contract.test.ts: each scenario asserts what the contract says and notes its answers, and
 * both backends must note the very same answers.
 */
type Note = (label: string, value: unknown) => void;

function contract(
  name: string,
  scenario: (store: Store, note: Note, t: TestContext, backend: Backend) => Promise<void>,
): void {
  test(name, async (t) => {
    const transcripts: { backend: string; notes: [string, unknown][] }[] = [];
    for (const backend of BACKENDS) {
      await t.test(backend.name, async (st) => {
        const store = await backend.open(st);
        const notes: [string, unknown][] = [];
        await scenario(store, (label, value) => notes.push([label, structuredClone(value)]), st, backend);
        transcripts.push({ backend: backend.name, notes });
      });
    }
    assert.equal(transcripts.length, BACKENDS.length);
    for (const other of transcripts.slice(1))
      assert.deepStrictEqual(
        other.notes,
        transcripts[0].notes,
        `${other.backend} answers as ${transcripts[0].backend} does`,
      );
  });
}

const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const AT = at(0);
const tid = (n: number) => `tsk_${String(n).padStart(4, '0')}`;
const file = (name: string, bytes: number) => ({ name, bytes });

async function funded(store: Store, id: string, amount: number): Promise<void> {
  await store.accounts.create({ id, name: id, balance: 0, createdAt: AT, updatedAt: AT });
  if (amount > 0) await store.accounts.credit({ id: `crd_${id}`, accountId: id, amount, note: 'seed', createdAt: AT });
}

const task = (
  id: string,
  accountId: string,
  request: unknown = { prompt: 'a red fox', metadata: { env: 'prod' } },
  items = 2,
): TaskRecord => ({
  id,
  type: 'image.generate',
  status: 'pending',
  accountId,
  apiKeyId: null,
  request,
  items: Array.from({ length: items }, (): ItemRecord => ({ status: 'pending' })),
  estimate: 2000 * items,
  cost: 0,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});

/** A task created and settled at `settledAt`: every item succeeded at 1000 each, or it failed, free. */
async function settled(
  store: Store,
  id: string,
  accountId: string,
  settledAt: string,
  o: { failed?: boolean; files?: number[] } = {},
): Promise<TaskRecord> {
  await store.tasks.create(task(id, accountId, { prompt: `prompt of ${id}`, metadata: { env: 'prod', n: id } }, 1), {});
  const item: ItemRecord = o.failed
    ? { status: 'failed', error: { code: 'PROVIDER_ERROR', message: `engine said no to ${id}` } }
    : { status: 'success', cost: 1000, files: (o.files ?? [100]).map((bytes, i) => file(`img_${id}_${i}.png`, bytes)) };
  const outcome = o.failed
    ? {
        status: 'failed' as const,
        result: null,
        errors: [{ code: 'PROVIDER_ERROR', message: `engine said no to ${id}` }],
        cost: 0,
      }
    : { status: 'completed' as const, result: { images: [{ id: `img_${id}`, alt: `alt of ${id}` }] }, cost: 1000 };
  const done = await store.tasks.settle({ id, ...outcome, at: settledAt, lastItem: { index: 0, item }, noEvent: true });
  assert.ok(done, `${id} settled`);
  return done;
}

contract(
  'removeData: a settled task is scrubbed once (metadata filters no longer find it); a pending one is left; an unknown one is undefined',
  async (store, note) => {
    await funded(store, 'acc_1', 100_000);
    await store.tasks.create(
      task(tid(1), 'acc_1', { prompt: 'a secret fox', negative_prompt: 'blur', metadata: { env: 'prod', who: 'ann' } }),
      {},
    );
    await store.tasks.recordItem(
      tid(1),
      0,
      { status: 'success', cost: 2000, files: [file('img_a.png', 300), file('img_a.thumb.webp', 20)] },
      at(500),
      { model: 'm1', seed: 7 },
    );
    const done = await store.tasks.settle({
      id: tid(1),
      status: 'completed',
      result: {
        model: 'm1',
        images: [{ id: 'img_a', alt: 'a fox in snow' }],
        magic_prompt: { positive: 'a fox, detailed' },
      },
      cost: 2000,
      at: at(1000),
      lastItem: {
        index: 1,
        item: { status: 'failed', error: { code: 'RESTRICTED_CONTENT', message: 'the engine refused "a secret fox"' } },
      },
    });
    assert.equal(done?.status, 'completed');
    await store.tasks.create(task(tid(2), 'acc_1', { prompt: 'still running', metadata: { env: 'prod' } }), {});
    const pending = await store.tasks.get(tid(2));
    const byMeta = async () =>
      (await store.tasks.list('acc_1', { limit: 10, metadata: { env: 'prod' } })).tasks.map((t) => t.id);
    assert.deepEqual(await byMeta(), [tid(2), tid(1)]);
    const counts = await store.tasks.countsByStatus();

    const scrubbed = await store.tasks.removeData(tid(1), at(5000));
    note('scrubbed', scrubbed);
    assert.ok(scrubbed);
    assert.equal(scrubbed.dataRemovedAt, at(5000));
    assert.deepEqual(scrubbed.request, {});
    assert.equal(scrubbed.result, null);
    assert.equal(scrubbed.cost, 2000, 'the charge stays');
    assert.equal(scrubbed.updatedAt, at(1000), 'the settlement time stays');
    assert.deepEqual(
      scrubbed.items,
      [
        { status: 'success', cost: 2000 },
        { status: 'failed', error: { code: 'RESTRICTED_CONTENT' } },
      ],
      'items keep statuses, costs and codes, not files or messages',
    );
    assert.ok(!JSON.stringify(scrubbed).includes('fox'), 'no prompt, alt text, magic prompt or message is left');
    assert.deepEqual(await store.tasks.get(tid(1)), scrubbed);
    assert.deepEqual(await byMeta(), [tid(2)], 'a metadata filter no longer finds it');
    assert.deepEqual((await store.tasks.list('acc_1', { limit: 10, metadata: { who: 'ann' } })).tasks, []);
    assert.deepEqual(
      (await store.tasks.list('acc_1', { limit: 10 })).tasks.map((t) => t.id),
      [tid(2), tid(1)],
      'still listed unfiltered',
    );

    const again = await store.tasks.removeData(tid(1), at(9000));
    assert.deepEqual(again, scrubbed, 'idempotent: the first removal time stays');
    note('again', again);
    assert.deepEqual(await store.tasks.removeData(tid(2), at(5000)), pending, 'a pending task answers as it is');
    assert.deepEqual(await store.tasks.get(tid(2)), pending, 'and is left as it was');
    assert.equal(await store.tasks.removeData('tsk_none', at(5000)), undefined);
    assert.deepEqual(await store.tasks.countsByStatus(), counts, 'statuses count as before');
    assert.equal(await store.tasks.reserved('acc_1'), 4000, "the pending task's reserve is untouched");
  },
);

contract(
  'withDataSettledBefore and settledBefore: per account, oldest settlement first, within the limit',
  async (store, note) => {
    await funded(store, 'acc_1', 100_000);
    await funded(store, 'acc_2', 100_000);
    // Settled out of id order, so the order by settlement time shows.
    await settled(store, tid(1), 'acc_1', at(5000));
    await settled(store, tid(2), 'acc_1', at(1000));
    await settled(store, tid(3), 'acc_1', at(3000), { failed: true });
    await store.tasks.create(task(tid(4), 'acc_1'), {});
    await settled(store, tid(5), 'acc_2', at(2000));
    await settled(store, tid(6), 'acc_1', at(4000));
    await store.tasks.removeData(tid(6), at(6000));

    const withData = async (before: number, limit: number, account = 'acc_1') =>
      (await store.tasks.withDataSettledBefore(account, at(before), limit)).map((t) => t.id);
    assert.deepEqual(
      await withData(4500, 10),
      [tid(2), tid(3)],
      'holding data, settled before; not the scrubbed, pending or later ones',
    );
    assert.deepEqual(await withData(4500, 1), [tid(2)]);
    assert.deepEqual(await withData(3000, 10), [tid(2)], '`before` is exclusive');
    assert.deepEqual(await withData(99_000, 10), [tid(2), tid(3), tid(1)]);
    assert.deepEqual(await withData(99_000, 10, 'acc_2'), [tid(5)]);
    assert.deepEqual(await withData(99_000, 0), []);
    assert.deepEqual(await withData(99_000, 10, 'acc_none'), []);
    note('tasks with data', await store.tasks.withDataSettledBefore('acc_1', at(4500), 10));

    assert.deepEqual(
      await store.tasks.settledBefore('acc_1', at(4500), 10),
      [tid(2), tid(3), tid(6)],
      'scrubbed or not',
    );
    assert.deepEqual(await store.tasks.settledBefore('acc_1', at(99_000), 3), [tid(2), tid(3), tid(6)]);
    assert.deepEqual(await store.tasks.settledBefore('acc_1', at(99_000), 10), [tid(2), tid(3), tid(6), tid(1)]);
    assert.deepEqual(await store.tasks.settledBefore('acc_2', at(99_000), 10), [tid(5)]);
    assert.deepEqual(await store.tasks.settledBefore('acc_1', at(1000), 10), []);
    assert.deepEqual(await store.tasks.settledBefore('acc_1', at(99_000), 0), []);
  },
);

contract(
  'purge: only settled tasks whose data is removed go; their charges move to removedCharges; counts and the ledger stay right',
  async (store, note) => {
    await funded(store, 'acc_1', 100_000);
    await funded(store, 'acc_2', 50_000);
    await settled(store, tid(1), 'acc_1', at(1000));
    await settled(store, tid(2), 'acc_1', at(2000));
    await settled(store, tid(3), 'acc_1', at(3000), { failed: true });
    await store.tasks.create(task(tid(4), 'acc_1'), {});
    await settled(store, tid(5), 'acc_2', at(4000));
    await settled(store, tid(6), 'acc_1', at(5000));
    for (const id of [tid(1), tid(3), tid(5), tid(6)]) await store.tasks.removeData(id, at(9000));
    note('counts before', await store.tasks.countsByTypeStatus());

    const purged = await store.tasks.purge([tid(1), tid(2), tid(3), tid(4), tid(5), 'tsk_none', tid(1)]);
    assert.equal(purged, 3, 'the scrubbed settled ones, each once');
    for (const id of [tid(1), tid(3), tid(5)]) assert.equal(await store.tasks.get(id), undefined, `${id} is gone`);
    assert.ok(await store.tasks.get(tid(2)), 'a task still holding data stays');
    assert.equal((await store.tasks.get(tid(4)))?.status, 'pending', 'a pending task stays');
    assert.ok(await store.tasks.get(tid(6)), 'one not named stays');

    const one = await store.accounts.get('acc_1');
    const two = await store.accounts.get('acc_2');
    assert.equal(one?.removedCharges, 1000, "acc_1's purged charge (the failed task was free)");
    assert.equal(one?.balance, 100_000 - 3000, 'the balance is what it was');
    assert.equal(two?.removedCharges, 1000);
    note('accounts', [one?.balance, one?.removedCharges, two?.balance, two?.removedCharges]);
    note('counts after', await store.tasks.countsByTypeStatus());
    assert.deepEqual(await store.tasks.countsByStatus(), { pending: 1, completed: 2, failed: 0 });
    const counted = (await store.tasks.countsByTypeStatus()).reduce((sum, entry) => sum + entry.count, 0);
    assert.equal(counted, 3);
    assert.deepEqual(
      (await store.tasks.list('acc_1', { limit: 10 })).tasks.map((t) => t.id),
      [tid(6), tid(4), tid(2)],
    );
    assert.deepEqual(await store.tasks.settledBefore('acc_1', at(99_000), 10), [tid(2), tid(6)]);
    assert.equal(await store.tasks.reserved('acc_1'), 4000);

    const ledger = await checkLedger(store);
    assert.deepEqual(ledger.problems, [], 'credits − charges − removed charges = balance');
    assert.equal(ledger.ok, true);

    assert.equal(await store.tasks.purge([tid(1), tid(6)]), 1, 'a second purge takes only what is left');
    assert.equal((await store.accounts.get('acc_1'))?.removedCharges, 2000);
    assert.equal(await store.tasks.purge([]), 0);
    assert.equal((await checkLedger(store)).ok, true);
  },
);

contract('storedBytes: the files of tasks still holding data, per account', async (store, note) => {
  await funded(store, 'acc_1', 100_000);
  await funded(store, 'acc_2', 100_000);
  assert.equal(await store.tasks.storedBytes('acc_1'), 0);
  await settled(store, tid(1), 'acc_1', at(1000), { files: [100, 50] });
  await store.tasks.create(task(tid(2), 'acc_1'), {});
  await store.tasks.recordItem(tid(2), 0, { status: 'success', cost: 2000, files: [file('img_p.png', 30)] }, at(1500));
  await settled(store, tid(3), 'acc_2', at(2000), { files: [1000] });
  await settled(store, tid(4), 'acc_1', at(2500), { failed: true });
  assert.equal(await store.tasks.storedBytes('acc_1'), 180);
  assert.equal(await store.tasks.storedBytes('acc_2'), 1000);
  assert.equal(await store.tasks.storedBytes('acc_none'), 0);

  // Counted once asked: what changes afterwards must move the count.
  await store.tasks.removeData(tid(1), at(3000));
  assert.equal(await store.tasks.storedBytes('acc_1'), 30, 'a scrubbed task holds nothing');
  await store.tasks.recordItem(tid(2), 1, { status: 'success', cost: 2000, files: [file('img_q.png', 7)] }, at(3500));
  assert.equal(await store.tasks.storedBytes('acc_1'), 37);
  await settled(store, tid(5), 'acc_1', at(4000), { files: [5] });
  assert.equal(await store.tasks.storedBytes('acc_1'), 42);
  await store.tasks.purge([tid(1)]);
  assert.equal(await store.tasks.storedBytes('acc_1'), 42);
  note('bytes', [await store.tasks.storedBytes('acc_1'), await store.tasks.storedBytes('acc_2')]);
});

const upload = (id: string, accountId: string, createdAt: string, bytes: number): UploadRecord => ({
  id,
  accountId,
  apiKeyId: accountId === 'acc_1' ? 'key_1' : null,
  fileName: `${id}.png`,
  bytes,
  createdAt,
});

contract('uploads: put, get, delete, the oldest of an account first, usage and all', async (store, note) => {
  await funded(store, 'acc_1', 0);
  await funded(store, 'acc_2', 0);
  await store.uploads.put(upload('img_c', 'acc_1', at(3000), 300));
  await store.uploads.put(upload('img_a', 'acc_1', at(1000), 100));
  await store.uploads.put(upload('img_b', 'acc_2', at(2000), 200));
  await store.uploads.put(upload('img_d', 'acc_1', at(2000), 400));
  note('get', await store.uploads.get('img_a'));
  assert.deepEqual(await store.uploads.get('img_a'), upload('img_a', 'acc_1', at(1000), 100));
  assert.equal(await store.uploads.get('img_none'), undefined);

  const before = async (accountId: string, ms: number, limit: number) =>
    (await store.uploads.createdBefore(accountId, at(ms), limit)).map((u) => u.id);
  assert.deepEqual(await before('acc_1', 9000, 10), ['img_a', 'img_d', 'img_c'], 'oldest first');
  assert.deepEqual(await before('acc_1', 3000, 10), ['img_a', 'img_d'], '`before` is exclusive');
  assert.deepEqual(await before('acc_1', 9000, 1), ['img_a']);
  assert.deepEqual(await before('acc_1', 9000, 0), []);
  assert.deepEqual(await before('acc_2', 9000, 10), ['img_b']);
  note('created before', await store.uploads.createdBefore('acc_1', at(9000), 10));
  assert.deepEqual(await store.uploads.usage('acc_1'), { count: 3, bytes: 800 });
  assert.deepEqual(await store.uploads.usage('acc_none'), { count: 0, bytes: 0 });

  assert.equal(await store.uploads.delete('img_d'), true);
  assert.equal(await store.uploads.delete('img_d'), false, 'once');
  assert.equal(await store.uploads.get('img_d'), undefined);
  assert.deepEqual(await store.uploads.usage('acc_1'), { count: 2, bytes: 400 });
  assert.deepEqual(await before('acc_1', 9000, 10), ['img_a', 'img_c']);
  // A put of the same id replaces it.
  await store.uploads.put(upload('img_a', 'acc_1', at(1000), 150));
  assert.deepEqual(await store.uploads.usage('acc_1'), { count: 2, bytes: 450 });
  const all = Array.from(await store.uploads.all());
  note('all', all);
  assert.deepEqual(all.map((u) => u.id).sort(), ['img_a', 'img_b', 'img_c']);
  // A tombstone (a deleted upload) replaces it: kept, found, walked by retention, but no longer counted as stored.
  await store.uploads.put({ ...upload('img_a', 'acc_1', at(1000), 150), deletedAt: at(5000) });
  assert.equal((await store.uploads.get('img_a'))?.deletedAt, at(5000));
  assert.deepEqual(await store.uploads.usage('acc_1'), { count: 1, bytes: 300 });
  assert.deepEqual(await before('acc_1', 9000, 10), ['img_a', 'img_c']);
});

const event = (
  id: string,
  accountId: string,
  payload: unknown = { type: 'task.completed', data: { metadata: { who: 'ann' } } },
): EventRecord => ({
  id,
  type: 'task.completed',
  accountId,
  taskId: null,
  createdAt: AT,
  payload,
});
const delivery = (id: string, eventId: string, accountId: string): DeliveryRecord => ({
  id,
  eventId,
  accountId,
  webhookId: null,
  url: 'https://hooks.example/x',
  status: 'pending',
  attempts: [],
  nextAttemptAt: AT,
  createdAt: AT,
  updatedAt: AT,
});

contract('events: a payload replaced is what the event and its pending deliveries then hold', async (store, note) => {
  await funded(store, 'acc_1', 0);
  await store.webhooks.recordEvent(
    event('evt_1', 'acc_1', { type: 'task.completed', data: { request: { prompt: 'a secret fox' } } }),
    [delivery('dlv_1', 'evt_1', 'acc_1')],
  );
  const scrubbed = { type: 'task.completed', data: { id: 'tsk_1', dataRemoved: true } };
  assert.equal(await store.webhooks.replaceEventPayload('evt_1', scrubbed), true);
  assert.equal(await store.webhooks.replaceEventPayload('evt_none', scrubbed), false);
  const replaced = await store.webhooks.getEvent('evt_1');
  note('event', replaced);
  assert.deepEqual(replaced, event('evt_1', 'acc_1', scrubbed));
  assert.deepEqual(
    (await store.webhooks.pendingDeliveries()).map((d) => d.id),
    ['dlv_1'],
    'its delivery still waits',
  );
});

contract(
  'purgeDeliveries: by age, settled ones only, oldest first, and the events left with none; by account, all of them',
  async (store, note) => {
    await funded(store, 'acc_1', 0);
    await funded(store, 'acc_2', 0);
    await store.webhooks.recordEvent(event('evt_1', 'acc_1'), [
      delivery('dlv_1', 'evt_1', 'acc_1'),
      delivery('dlv_2', 'evt_1', 'acc_1'),
    ]);
    await store.webhooks.recordEvent(event('evt_2', 'acc_1'), [delivery('dlv_3', 'evt_2', 'acc_1')]);
    await store.webhooks.recordEvent(event('evt_3', 'acc_2'), [
      delivery('dlv_4', 'evt_3', 'acc_2'),
      delivery('dlv_5', 'evt_3', 'acc_2'),
    ]);
    await store.webhooks.recordEvent(event('evt_4', 'acc_2'), [delivery('dlv_6', 'evt_4', 'acc_2')]);
    const attempt = (ms: number, status: number | null) => ({ at: at(ms), status, latencyMs: 5 });
    await store.webhooks.recordAttempt('dlv_3', attempt(3000, 200), 'delivered', null);
    await store.webhooks.recordAttempt('dlv_1', attempt(1000, 200), 'delivered', null);
    await store.webhooks.recordAttempt('dlv_4', attempt(2000, null), 'failed', null);
    await store.webhooks.recordAttempt('dlv_5', attempt(8000, 200), 'delivered', null);
    // dlv_2 and dlv_6 stay pending.

    assert.equal(await store.webhooks.purgeDeliveries(at(9000), 0), 0);
    assert.equal(await store.webhooks.purgeDeliveries(at(5000), 2), 2, 'the two oldest settled before');
    assert.equal(await store.webhooks.getDelivery('dlv_1'), undefined);
    assert.equal(await store.webhooks.getDelivery('dlv_4'), undefined);
    assert.ok(await store.webhooks.getDelivery('dlv_3'), 'the third oldest is past the limit');
    assert.ok(await store.webhooks.getEvent('evt_1'), 'an event with a pending delivery left stays');
    assert.ok(await store.webhooks.getEvent('evt_3'), 'an event with a recent delivery left stays');
    assert.equal(await store.webhooks.purgeDeliveries(at(5000), 10), 1);
    assert.equal(await store.webhooks.getEvent('evt_2'), undefined, 'an event left with none goes');
    assert.equal(await store.webhooks.purgeDeliveries(at(5000), 10), 0, 'nothing else is old enough');
    assert.deepEqual(await store.webhooks.deliveryCounts(), { pending: 2, delivered: 1, failed: 0 });
    assert.deepEqual(
      (await store.webhooks.deliveriesOfEvent('evt_1')).map((d) => d.id),
      ['dlv_2'],
    );

    // An erase: every delivery of the account, pending or recent, in batches; then its events.
    await store.webhooks.recordEvent(event('evt_5', 'acc_2'), []);
    assert.equal(await store.webhooks.purgeDeliveries(at(0), 1, 'acc_2'), 1);
    assert.equal(await store.webhooks.purgeDeliveries(at(0), 1, 'acc_2'), 1);
    assert.equal(await store.webhooks.purgeDeliveries(at(0), 1, 'acc_2'), 0);
    for (const id of ['evt_3', 'evt_4', 'evt_5'])
      assert.equal(await store.webhooks.getEvent(id), undefined, `${id} is gone`);
    assert.equal(await store.webhooks.getDelivery('dlv_6'), undefined, 'a pending delivery of the account goes too');
    assert.ok(await store.webhooks.getEvent('evt_1'), "another account's event stays");
    assert.deepEqual(
      (await store.webhooks.pendingDeliveries()).map((d) => d.id),
      ['dlv_2'],
    );
    assert.deepEqual(
      await store.webhooks.nextDeliveries(10, new Set()).then((list) => list.map((d) => d.id)),
      ['dlv_2'],
      'the due order forgets them',
    );
    note('counts', await store.webhooks.deliveryCounts());
  },
);

contract(
  'deleteByAccount: idempotency answers and console sessions of one account go, others stay',
  async (store, note) => {
    const now = at(0);
    const record = (accountId: string, key: string) => ({
      id: `${accountId}:${key}`,
      accountId,
      key,
      fingerprint: `fp_${key}`,
      createdAt: now,
      expiresAt: at(86_400_000),
    });
    for (const [accountId, key] of [
      ['acc_a', 'k1'],
      ['acc_a', 'k2'],
      ['acc_b', 'k1'],
    ]) {
      const claim = `claim_${accountId}_${key}`;
      assert.equal((await store.idempotency.claim({ ...record(accountId, key), claim }, now)).claimed, true);
      assert.equal(
        await store.idempotency.complete({ ...record(accountId, key), answer: `sealed_${key}` }, claim),
        true,
      );
    }
    assert.equal((await store.idempotency.claim({ ...record('acc_a', 'k3'), claim: 'in_flight' }, now)).claimed, true);
    note('idempotency deleted', await store.idempotency.deleteByAccount('acc_a'));
    for (const key of ['k1', 'k2', 'k3'])
      assert.equal(await store.idempotency.get(`acc_a:${key}`, now), undefined, `acc_a:${key} is gone`);
    assert.ok(await store.idempotency.get('acc_b:k1', now), "another account's answer stays");
    assert.equal(await store.idempotency.deleteByAccount('acc_a'), 0);

    const session = (id: string, accountId: string | null) => ({
      id,
      hash: `hash_${id}`,
      kind: 'session' as const,
      accountId,
      scopes: ['manage'],
      createdAt: now,
      expiresAt: at(3_600_000),
    });
    await store.consoleSessions.put(session('cs_1', 'acc_a'));
    await store.consoleSessions.put(session('cs_2', 'acc_a'));
    await store.consoleSessions.put(session('cs_3', 'acc_b'));
    await store.consoleSessions.put(session('cs_op', null));
    assert.equal(await store.consoleSessions.deleteByAccount('acc_a'), 2);
    assert.equal(await store.consoleSessions.deleteByAccount('acc_a'), 0);
    assert.equal(await store.consoleSessions.getByHash('hash_cs_1'), undefined);
    assert.deepEqual(
      (await store.consoleSessions.list(now)).map((s) => s.id),
      ['cs_3', 'cs_op'],
    );
  },
);

contract(
  'accounts: retention overrides replace as a whole, an erase renames and marks, null clears',
  async (store, note) => {
    await funded(store, 'acc_1', 0);
    await funded(store, 'acc_2', 0);
    const first = await store.accounts.update('acc_1', { retention: { outputs: '7d', uploads: 'off' } }, at(1000));
    note('retention', first);
    assert.deepEqual(first?.retention, { outputs: '7d', uploads: 'off' });
    assert.equal(first?.updatedAt, at(1000));
    const replaced = await store.accounts.update('acc_1', { retention: { tasks: '90d' } }, at(2000));
    assert.deepEqual(replaced?.retention, { tasks: '90d' }, 'replaced, not merged');
    const weighted = await store.accounts.update('acc_1', { weight: 3 }, at(3000));
    assert.deepEqual(weighted?.retention, { tasks: '90d' }, 'an absent field is kept');
    const cleared = await store.accounts.update('acc_1', { retention: {} }, at(4000));
    assert.equal(cleared?.retention, undefined, 'an empty object leaves no overrides');
    note('cleared', cleared);

    const erasing = await store.accounts.update('acc_1', { erasingSince: at(5000) }, at(5000));
    assert.equal(erasing?.erasingSince, at(5000));
    await assert.rejects(
      store.accounts.update('acc_1', { name: 'acc_2' }, at(5500)),
      { code: 'VALIDATION_ERROR' },
      "another account's name is refused",
    );
    const erased = await store.accounts.update(
      'acc_1',
      { name: 'acc_1_erased', erasingSince: null, erasedAt: at(6000) },
      at(6000),
    );
    note('erased', erased);
    assert.equal(erased?.name, 'acc_1_erased');
    assert.equal(erased?.erasingSince, undefined, 'null clears');
    assert.equal(erased?.erasedAt, at(6000));
    assert.equal((await store.accounts.getByName('acc_1_erased'))?.id, 'acc_1', 'found by its new name');
    assert.equal(await store.accounts.getByName('acc_1'), undefined, 'not by its old one');
    const renamed = await store.accounts.update('acc_2', { name: 'acc_1' }, at(7000));
    assert.equal(renamed?.name, 'acc_1', 'the old name is free again');
    assert.equal((await store.accounts.getByName('acc_1'))?.id, 'acc_2');
    assert.equal(await store.accounts.update('acc_none', { name: 'x' }, at(7000)), undefined);
    note('list', await store.accounts.list());
  },
);

contract(
  'dump: uploads go out and come back; a version 1 dump (before uploads) still loads',
  async (store, note, t, backend) => {
    await funded(store, 'acc_1', 1000);
    await store.uploads.put(upload('img_a', 'acc_1', at(1000), 100));
    await store.uploads.put(upload('img_b', 'acc_1', at(2000), 200));
    const dir = await tempDir(t);
    const path = join(dir, 'dump.jsonl');
    const counts = await writeDump(path, store.records(), { from: backend.name, exportedAt: AT });
    assert.equal(counts.upload, 2);
    note('counts', counts);
    const text = await readFile(path, 'utf8');
    assert.match(text, /^\{"imgtask":"store-dump","version":2,/);
    assert.ok(text.split('\n').at(-3)?.startsWith('{"kind":"upload"'), 'uploads come last');

    const target = await backend.open(t);
    assert.deepEqual(await target.load(readDump(path)), counts);
    assert.deepEqual(await target.uploads.get('img_b'), upload('img_b', 'acc_1', at(2000), 200));
    assert.deepEqual(await target.uploads.usage('acc_1'), { count: 2, bytes: 300 });
    assert.deepEqual(
      (await target.uploads.createdBefore('acc_1', at(9000), 10)).map((u) => u.id),
      ['img_a', 'img_b'],
    );

    const v1 = join(dir, 'v1.jsonl');
    const lines = text.trimEnd().split('\n');
    const { upload: _, ...v1Counts } = counts;
    await writeFile(
      v1,
      `${[lines[0].replace('"version":2', '"version":1'), ...lines.slice(1, -1).filter((line) => !line.startsWith('{"kind":"upload"')), JSON.stringify({ imgtask: 'store-dump-end', counts: v1Counts })].join('\n')}\n`,
    );
    const older = await backend.open(t);
    const loaded = await older.load(readDump(v1));
    assert.equal(loaded.upload, 0);
    assert.equal(loaded.account, 1);
    assert.deepEqual(await older.uploads.usage('acc_1'), { count: 0, bytes: 0 });
  },
);

contract(
  "forgetNames: every key of the account loses its name, revoked ones too; other accounts' keep theirs",
  async (store, note) => {
    await funded(store, 'acc_1', 0);
    await funded(store, 'acc_2', 0);
    const key = (id: string, accountId: string, name?: string): ApiKeyRecord => ({
      id,
      accountId,
      hash: `hash_${id}`,
      preview: 'mak_abcd',
      scopes: ['tasks:read'],
      spendingLimitPeriod: 'month',
      createdAt: AT,
      ...(name === undefined ? {} : { name }),
    });
    await store.apiKeys.create(key('key_live', 'acc_1', "ann's laptop"), { maxLive: 10 });
    await store.apiKeys.create(key('key_old', 'acc_1', "ann's old phone"), { maxLive: 10 });
    await store.apiKeys.create(key('key_unnamed', 'acc_1'), { maxLive: 10 });
    await store.apiKeys.create(key('key_other', 'acc_2', 'ci'), { maxLive: 10 });
    await store.apiKeys.revoke('key_old', at(1000));
    note('forgotten', await store.apiKeys.forgetNames('acc_1'));
    assert.equal(await store.apiKeys.forgetNames('acc_1'), 0, 'nothing left to forget');
    for (const id of ['key_live', 'key_old', 'key_unnamed'])
      assert.equal((await store.apiKeys.get(id))?.name, undefined, id);
    assert.equal((await store.apiKeys.get('key_old'))?.revokedAt, at(1000), 'still revoked');
    assert.equal((await store.apiKeys.get('key_other'))?.name, 'ci');
  },
);

contract(
  'a create for an account being erased, or erased, is refused by the store (it may have passed its credential before the erase began)',
  async (store) => {
    await funded(store, 'acc_1', 10_000_000);
    await store.tasks.create(task(tid(1), 'acc_1'), {});
    await store.accounts.update('acc_1', { erasingSince: AT }, AT);
    await assert.rejects(store.tasks.create(task(tid(2), 'acc_1'), {}), { code: 'UNAUTHORIZED' });
    await store.accounts.update('acc_1', { erasingSince: null, erasedAt: AT }, AT);
    await assert.rejects(store.tasks.create(task(tid(3), 'acc_1'), {}), { code: 'UNAUTHORIZED' });
    assert.equal(await store.tasks.get(tid(2)), undefined);
    assert.equal(await store.tasks.countPending(), 1);
  },
);
