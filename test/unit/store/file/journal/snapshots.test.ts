import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import type { TaskRecord } from '../../../../../src/store/records/tasks.js';
import { closeBeforeRemoval, tempDir } from '../../../../helpers/temp-dir.js';
import { crashImage } from '../store-files.js';

const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const AT = at(0);
const tid = (n: number) => `tsk_${String(n).padStart(6, '0')}`;

async function open(dir: string): Promise<JsonStore> {
  const store = await JsonStore.open({ dir });
  closeBeforeRemoval(dir, () => store.close());
  return store;
}

/** Every file under `dir`, any depth, that holds `needle` (as bytes): what a grep of the folder finds. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const bytes = Buffer.from(needle);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if ((await readFile(path)).includes(bytes)) found.push(path.slice(dir.length + 1));
  }
  return found.sort();
}

const request = (prompt: string, metadata: Record<string, string>) => ({ prompt, negative_prompt: 'blurry', metadata });

async function seed(store: JsonStore, marker: string): Promise<void> {
  await store.accounts.create({ id: 'acc_1', name: 'ann', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 100_000, note: 'seed', createdAt: AT });
  for (const [n, prompt, metadata] of [
    [1, `a fox in the snow ${marker}`, { tag: marker }],
    [2, 'a kept lighthouse', { tag: 'kept-tag' }],
  ] as const) {
    await store.tasks.create(
      {
        id: tid(n),
        type: 'image.generate',
        status: 'pending',
        accountId: 'acc_1',
        apiKeyId: null,
        request: request(prompt, metadata),
        items: [{ status: 'pending' }],
        estimate: 2000,
        cost: 0,
        result: null,
        createdAt: at(n),
        updatedAt: at(n),
      },
      {},
    );
    await store.tasks.settle({
      id: tid(n),
      status: 'completed',
      result: { model: 'm1', images: [{ id: `img_${n}`, alt: `${prompt} (alt)` }] },
      cost: 1000,
      at: at(100 + n),
      lastItem: {
        index: 0,
        item: { status: 'success', cost: 1000, files: [{ name: `img_${n}.png`, bytes: 1000 * n }] },
      },
    });
    await store.webhooks.recordEvent(
      {
        id: `evt_${n}`,
        type: 'task.completed',
        accountId: 'acc_1',
        taskId: tid(n),
        createdAt: at(200 + n),
        payload: { data: { request: request(prompt, metadata) } },
      },
      [
        {
          id: `dlv_${n}`,
          eventId: `evt_${n}`,
          accountId: 'acc_1',
          webhookId: null,
          url: 'https://hooks.example/x',
          status: 'pending',
          attempts: [],
          nextAttemptAt: AT,
          createdAt: AT,
          updatedAt: AT,
        },
      ],
    );
  }
  await store.uploads.put({
    id: 'img_up',
    accountId: 'acc_1',
    apiKeyId: null,
    fileName: 'img_up.png',
    bytes: 4096,
    createdAt: at(300),
  });
}

test('after removeData, replaceEventPayload and compact(), no file under the store folder holds the removed text; a reopen keeps the rest', async (t) => {
  const dir = await tempDir(t);
  const marker = `MARKER${Math.random().toString(36).slice(2, 12)}`;
  const store = await open(dir);
  await seed(store, marker);
  // The marker in a snapshot, in the journal after it, and in a temp file an interrupted write left.
  await store.engine.snapshot();
  await store.accounts.update('acc_1', { retention: { outputs: '7d' } }, at(400));
  await writeFile(join(dir, 'snapshot.json.tmp'), `{"left":"${marker}"}`);
  await store.webhooks.recordAttempt('dlv_2', { at: at(500), status: 200, latencyMs: 3 }, 'delivered', null);
  assert.deepEqual(
    await filesHolding(dir, marker),
    ['snapshot.json', 'snapshot.json.tmp'],
    'the marker is on disk before',
  );

  const scrubbed = await store.tasks.removeData(tid(1), at(1000));
  assert.deepEqual(scrubbed?.request, {});
  assert.equal(await store.webhooks.replaceEventPayload('evt_1', { data: { id: tid(1), dataRemoved: true } }), true);
  assert.ok((await filesHolding(dir, marker)).length > 0, 'removing alone leaves the old bytes in the files');

  await store.compact();
  assert.deepEqual(await filesHolding(dir, marker), [], 'no journal, snapshot or temp file holds it');
  assert.ok(
    (await filesHolding(dir, 'a kept lighthouse')).includes('snapshot.json'),
    'what was kept is in the new snapshot',
  );
  // The checkpoint's own temp file may be under way: it holds a seq and nothing else.
  const names = (await readdir(dir)).filter((name) => name !== 'journal.checkpoint.tmp').sort();
  assert.deepEqual(
    names,
    ['LOCK', 'journal.checkpoint', 'journal.jsonl', 'snapshot.json'],
    'no old journal, no other temp file',
  );
  assert.equal((await readFile(join(dir, 'journal.jsonl'))).length, 0, 'every record is in the snapshot');

  const before = store.engine.state.collections().map((c) => [c.name, c.capture()]);
  await store.close();
  assert.deepEqual(await filesHolding(dir, marker), [], 'nor after a close');

  const reopened = await open(dir);
  // Read through the repos first: records loaded from the snapshot are parsed on first read.
  assert.equal((await reopened.tasks.get(tid(1)))?.dataRemovedAt, at(1000));
  assert.equal(
    await reopened.tasks.storedBytes('acc_1'),
    2000,
    'the bytes of the task still holding data, counted from the snapshot',
  );
  assert.deepEqual(await reopened.tasks.settledBefore('acc_1', at(10_000), 10), [tid(1), tid(2)]);
  assert.deepEqual(
    (await reopened.tasks.withDataSettledBefore('acc_1', at(10_000), 10)).map((task) => task.id),
    [tid(2)],
  );
  assert.deepEqual(
    (await reopened.tasks.list('acc_1', { limit: 10, metadata: { tag: 'kept-tag' } })).tasks.map((task) => task.id),
    [tid(2)],
  );
  assert.deepEqual(await reopened.uploads.usage('acc_1'), { count: 1, bytes: 4096 });
  assert.deepEqual(
    reopened.engine.state.collections().map((c) => [c.name, c.capture()]),
    before,
    'everything else as it was',
  );
  assert.deepEqual((await reopened.accounts.get('acc_1'))?.retention, { outputs: '7d' });
  assert.equal((await reopened.webhooks.getDelivery('dlv_2'))?.status, 'delivered');

  // The count read from the snapshot moves with later changes.
  await reopened.tasks.removeData(tid(2), at(2000));
  assert.equal(await reopened.tasks.storedBytes('acc_1'), 0);
});

test('writes made while compact() runs are kept: they land in the journal after the snapshot', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await seed(store, 'unused');
  await Promise.all(
    Array.from({ length: 3000 }, (_, n) =>
      store.uploads.put({
        id: `img_${n}`,
        accountId: 'acc_1',
        apiKeyId: null,
        fileName: `img_${n}.png`,
        bytes: n,
        createdAt: at(n),
      }),
    ),
  );

  const compacting = store.compact();
  let done = false;
  void compacting.then(() => {
    done = true;
  });
  const writes: Promise<unknown>[] = [store.accounts.update('acc_1', { weight: 7 }, at(5000))];
  let n = 0;
  while (!done) {
    writes.push(
      store.uploads.put({
        id: `img_during_${n}`,
        accountId: 'acc_1',
        apiKeyId: null,
        fileName: 'x.png',
        bytes: 1,
        createdAt: at(6000 + n),
      }),
    );
    n += 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await compacting;
  writes.push(store.uploads.delete('img_0'));
  await Promise.all(writes);
  assert.ok(n > 1, 'writes were made while the snapshot was written');

  // A crash now: the snapshot and the journal after it must hold every acknowledged write.
  const image = await crashImage(t, dir);
  const after = await open(image);
  assert.equal((await after.accounts.get('acc_1'))?.weight, 7);
  for (let i = 0; i < n; i++) assert.ok(await after.uploads.get(`img_during_${i}`), `img_during_${i} survived`);
  assert.equal(await after.uploads.get('img_0'), undefined);
  assert.deepEqual(await after.uploads.usage('acc_1'), {
    count: 3000 - 1 + n + 1,
    bytes: (2999 * 3000) / 2 + n + 4096,
  });
});

test('compact() of a store of 20,000 tasks works in slices: the event loop is never held for a quarter of its run (the 100 ms target is measured by bench:retention)', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.accounts.create({ id: 'acc_1', name: 'ann', balance: 0, createdAt: AT, updatedAt: AT });
  await store.accounts.credit({ id: 'crd_1', accountId: 'acc_1', amount: 1e12, note: 'seed', createdAt: AT });
  const filler = 'a long prompt about a lighthouse on a cliff at dusk, '.repeat(12);
  const task = (n: number): TaskRecord => ({
    id: tid(n),
    type: 'image.generate',
    status: 'pending',
    accountId: 'acc_1',
    apiKeyId: null,
    request: request(`${n} ${filler}`, { n: String(n), batch: 'load' }),
    items: [{ status: 'pending' }, { status: 'pending' }],
    estimate: 2000,
    cost: 0,
    result: null,
    createdAt: at(n),
    updatedAt: at(n),
  });
  for (let from = 0; from < 20_000; from += 5000) {
    await Promise.all(Array.from({ length: 5000 }, (_, i) => store.tasks.create(task(from + i), {})));
  }
  assert.equal(await store.tasks.countPending(), 20_000);

  // A stall is measured in wall time: on a loaded machine the process is also descheduled at
  // times, which adds to one round and not to another. The least of three rounds' longest stall
  // still bounds what compaction itself holds the loop for.
  const rounds: { took: number; longest: number }[] = [];
  for (let round = 0; round < 3; round++) {
    await store.accounts.update('acc_1', { weight: round + 2 }, at(round)); // something new to compact
    let last = performance.now();
    let longest = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    try {
      await store.compact();
    } finally {
      clearInterval(timer);
    }
    rounds.push({
      took: Math.round(performance.now() - started),
      longest: Math.round(Math.max(longest, performance.now() - last)),
    });
  }
  t.diagnostic(
    `compaction of 20,000 tasks, per round: ${rounds.map((r) => `${r.took} ms with a longest stall of ${r.longest} ms`).join('; ')}`,
  );
  assert.ok((await readFile(join(dir, 'snapshot.json'))).length > 20_000 * 600, 'the snapshot holds every task');
  assert.equal((await readFile(join(dir, 'journal.jsonl'))).length, 0, 'compacted up to the last write');
  // The test catches compaction that holds the loop for a large part of its run (done in one piece it
  // holds it for the whole ~1 s); the 100 ms target itself is measured by `npm run bench:retention`,
  // beside its anchor, where a loaded machine cannot fail a test.
  const least = Math.min(...rounds.map((r) => r.longest));
  const whole = Math.min(...rounds.map((r) => r.took));
  assert.ok(
    least < Math.max(100, whole / 4),
    `compaction held the event loop for ${least} ms at best of three rounds (a round took ${whole} ms)`,
  );
});
