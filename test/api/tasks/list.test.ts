import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService, waitForTask } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

test("GET /tasks lists the caller's tasks newest first with cursor pagination", async (t) => {
  const h = await startService(t);
  const ids: string[] = [];
  for (let i = 0; i < 7; i++)
    ids.push(
      (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { n: i } } })).json.data.taskId,
    );
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await h.request('GET', `/tasks?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { auth: h.apiKey });
    assert.equal(res.status, 200);
    seen.push(...res.json.data.map((task: { id: string }) => task.id));
    cursor = res.json.nextCursor;
    pages += 1;
  } while (cursor);
  assert.equal(pages, 3);
  assert.deepEqual(seen, [...ids].reverse());
});

test('GET /tasks filters by status, type, metadata values and creation time', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00.000Z'));
  const h = await startService(t, { clock });
  const done = (await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { order: 'A', shop: 7 } } }))
    .json.data.taskId;
  await waitForTask(h, done);
  clock.advance(60_000);
  const waiting = (
    await h.request('POST', '/test/tasks', {
      auth: h.apiKey,
      body: { delayMs: 10_000, metadata: { order: 'B', shop: 7 } },
    })
  ).json.data.taskId;
  const list = async (query: string) =>
    (await h.request('GET', `/tasks?${query}`, { auth: h.apiKey })).json.data.map((task: { id: string }) => task.id);

  assert.deepEqual(await list('status=pending'), [waiting]);
  assert.deepEqual(await list('status=completed'), [done]);
  assert.deepEqual(await list('type=test.echo'), [waiting, done]);
  assert.deepEqual(await list('type=image.generate'), []);
  assert.deepEqual(await list('metadata.order=A'), [done]);
  assert.deepEqual(await list('metadata.shop=7'), [waiting, done]);
  assert.deepEqual(await list('metadata.shop=7&metadata.order=B'), [waiting]);
  assert.deepEqual(await list('createdAfter=2026-11-22T10:00:30.000Z'), [waiting]);
  assert.deepEqual(await list('createdBefore=2026-11-22T10:00:30.000Z'), [done]);
});

test('bad list parameters are schema rejections in the { success: false, errors } shape', async (t) => {
  const h = await startService(t);
  for (const query of ['limit=0', 'limit=101', 'status=done', 'createdAfter=yesterday', 'cursor=abc']) {
    const res = await h.request('GET', `/tasks?${query}`, { auth: h.apiKey });
    assert.equal(res.status, 400, query);
    assert.equal(res.json.success, false);
    assert.equal(res.json.errors.length, 1);
    assert.equal(res.json.errors[0].path[0], query.split('=')[0]);
  }
});
