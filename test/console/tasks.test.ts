import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { eventually, type Harness, startService, waitForTask } from '../helpers/harness.js';

/** A test.echo task (settles at once unless held with delayMs), created with a key; answers its id. */
async function echo(h: Harness, body: Record<string, unknown> = {}, auth = h.apiKey): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

/** The task ids a list page (or rows fragment) shows, in order. */
const listedIds = (html: string): string[] =>
  [...html.matchAll(/href="\/console\/tasks\/(tsk_[0-9A-Za-z]+)"/g)].map((m) => m[1]);

/** The target of a pager link by its text, as a path to get (attribute escapes undone). */
function pagerLink(html: string, text: 'Older' | 'Newer' | 'Newest'): string | undefined {
  const nav = /<nav class="pager"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
  return new RegExp(`href="([^"]+)"[^>]*>${text}<`).exec(nav)?.[1].replaceAll('&amp;', '&');
}

/** Lists `query` and asserts the ids shown. */
async function expectListed(c: ConsoleClient, query: string, ids: string[], message: string): Promise<void> {
  const res = await c.get(`/console/tasks${query}`);
  assert.equal(res.status, 200, `${message}: ${res.text.slice(0, 300)}`);
  assert.deepEqual(listedIds(res.text), ids, message);
}

test('the list shows the account’s tasks newest first, filtered by status, type, key, date and metadata as a URL', async (t) => {
  const h = await startService(t);
  const second = await h.server.services.apiKeys.create({ accountId: h.accountId, name: 'second key' });
  const ordered = await echo(h, { metadata: { order: 'o-1', env: 'prod' } });
  const failed = await echo(h, { failItems: [0], failCode: 'INVALID_INPUT', metadata: { order: 'o-2' } });
  const generated = (
    await h.request('POST', '/image/generate', {
      auth: second.raw,
      body: { prompt: 'a harbour at dawn', model: 'auto' },
    })
  ).json.data.taskId as string;
  for (const id of [ordered, failed, generated]) await waitForTask(h, id);
  const c = await consoleSignIn(h);

  const page = await c.get('/console/tasks');
  assert.equal(page.status, 200);
  assert.deepEqual(listedIds(page.text), [generated, failed, ordered], 'newest first');
  assert.match(page.text, /<form method="get" action="\/console\/tasks" class="filters"/, 'filters are a GET form');
  for (const type of ['image.generate', 'image.rate', 'test.echo'])
    assert.ok(page.text.includes(`<option value="${type}">${type}</option>`), `the type select offers ${type}`);
  assert.ok(
    page.text.includes(`<option value="${second.apiKey.id}">second key (`),
    "the key select offers the account's keys",
  );
  const generatedRow = page.text.split('<tr').find((row) => row.includes(generated)) ?? '';
  assert.match(generatedRow, /<span class="badge completed">completed<\/span>/, 'status as text');
  assert.match(generatedRow, /second key/, "the key's name");
  assert.match(generatedRow, /1 \/ 0 of 1/, 'items succeeded / failed');
  const failedRow = page.text.split('<tr').find((row) => row.includes(failed)) ?? '';
  assert.match(failedRow, /<span class="badge failed">failed<\/span>/);
  assert.match(failedRow, /0 \/ 1 of 1/);

  await expectListed(c, '?status=failed', [failed], 'by status');
  await expectListed(c, '?type=image.generate', [generated], 'by type');
  await expectListed(c, `?key=${second.apiKey.id}`, [generated], 'by key');
  await expectListed(c, `?key=${h.keyId}&status=completed`, [ordered], 'by key and status');
  await expectListed(c, `?metadata=${encodeURIComponent('order=o-1')}`, [ordered], 'by metadata');
  await expectListed(
    c,
    `?metadata=${encodeURIComponent('order=o-1')}&metadata=${encodeURIComponent('env=dev')}`,
    [],
    'every metadata filter applies',
  );
  const today = new Date().toISOString().slice(0, 10);
  await expectListed(
    c,
    `?from=${today}&to=${today}`,
    [generated, failed, ordered],
    "today's tasks, both days included",
  );
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const none = await c.get(`/console/tasks?from=${tomorrow}`);
  assert.deepEqual(listedIds(none.text), []);
  assert.match(none.text, /No tasks match these filters/);
  assert.match(none.text, /href="\/console\/tasks">Clear filters/);

  const bad = await c.get('/console/tasks?status=bogus&from=2026-02-31&metadata=novalue');
  assert.equal(bad.status, 400, 'filters that do not parse are refused as the API would');
  assert.match(bad.text, /VALIDATION_ERROR/);
  for (const text of [
    'Status: choose pending, completed or failed',
    'From: not a date',
    'Metadata: write each filter as key=value',
  ])
    assert.ok(bad.text.includes(text), text);
  assert.deepEqual(listedIds(bad.text), [generated, failed, ordered], 'the other filters still apply (none here)');
});

test('with no task yet the list says so and points to the Playground', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const res = await c.get('/console/tasks');
  assert.equal(res.status, 200);
  assert.match(res.text, /No tasks yet/);
  assert.match(res.text, /href="\/console\/playground"/);
  assert.equal(res.text.includes('id="task-rows"'), false);
});

test('Older and Newer links page through the list by cursor, the filters kept', async (t) => {
  const h = await startService(t);
  const ids: string[] = [];
  for (let n = 0; n < 5; n++) ids.push(await echo(h, { metadata: { batch: 'b1' } }));
  await echo(h, { metadata: { batch: 'other' } });
  const newestFirst = [...ids].reverse();
  const c = await consoleSignIn(h);

  const first = await c.get('/console/tasks?metadata=batch%3Db1&limit=2');
  assert.deepEqual(listedIds(first.text), newestFirst.slice(0, 2));
  assert.equal(pagerLink(first.text, 'Newer'), undefined, 'the newest page has no Newer link');
  const older = pagerLink(first.text, 'Older');
  assert.equal(older, `/console/tasks?metadata=batch%3Db1&limit=2&before=${newestFirst[1]}`);

  const second = await c.get(older);
  assert.deepEqual(listedIds(second.text), newestFirst.slice(2, 4));
  const third = await c.get(pagerLink(second.text, 'Older')!);
  assert.deepEqual(listedIds(third.text), newestFirst.slice(4), 'the last page');
  assert.equal(pagerLink(third.text, 'Older'), undefined, 'the oldest page has no Older link');

  const back = await c.get(pagerLink(third.text, 'Newer')!);
  assert.deepEqual(listedIds(back.text), newestFirst.slice(2, 4), 'Newer goes back a page');
  const top = await c.get(pagerLink(back.text, 'Newer')!);
  assert.deepEqual(listedIds(top.text), newestFirst.slice(0, 2), 'and back to the newest page');
  assert.equal(pagerLink(top.text, 'Newer'), undefined);
  assert.equal(pagerLink(third.text, 'Newest'), '/console/tasks?metadata=batch%3Db1&limit=2');
});

test('the rows fragment answers just the rows of the same query, and a pending task turns settled in it', async (t) => {
  const h = await startService(t);
  const settled = await echo(h);
  await waitForTask(h, settled);
  const held = await echo(h, { delayMs: 400 });
  const c = await consoleSignIn(h);

  const page = await c.get('/console/tasks?type=test.echo');
  assert.match(
    page.text,
    /<tbody id="task-rows" data-rows="\/console\/tasks\/rows\?type=test\.echo" data-newest="true">/,
  );
  assert.match(page.text, /<script type="module" src="\/console\/assets\/tasks\.[0-9a-f]{12}\.js">/);

  const rows = await c.get('/console/tasks/rows?type=test.echo');
  assert.equal(rows.status, 200);
  assert.equal(rows.headers.get('x-task-rows'), '1');
  assert.match(rows.text, /^<tr/);
  assert.equal(rows.text.includes('<html'), false, 'only rows, no page');
  assert.deepEqual(listedIds(rows.text), [held, settled]);
  assert.match(rows.text.split('<tr').find((row) => row.includes(held)) ?? '', /badge pending/);
  await eventually(async () => {
    const now = await c.get('/console/tasks/rows?type=test.echo');
    return /badge completed/.test(now.text.split('<tr').find((row) => row.includes(held)) ?? '');
  });

  assert.deepEqual(listedIds((await c.get('/console/tasks/rows?status=failed')).text), []);
  assert.match((await c.get('/console/tasks/rows?status=failed')).text, /No tasks match these filters/);
  const signedOut = await fetch(`${h.url}/console/tasks/rows`, { redirect: 'manual' });
  assert.equal(signedOut.status, 303, 'no rows without a session');
});

test("another account's task is not listed, and its inspector and actions answer not found", async (t) => {
  const h = await startService(t);
  const { services } = h.server;
  const other = await services.accounts.create('globex', 10_000_000);
  const { raw } = await services.apiKeys.create({ accountId: other.id, name: 'globex key' });
  const theirs = await echo(h, { metadata: { order: 'shared' } }, raw);
  const mine = await echo(h, { metadata: { order: 'shared' } });
  await waitForTask(h, mine);
  const c = await consoleSignIn(h);

  await expectListed(c, '', [mine], 'only my task in the list');
  await expectListed(c, '?metadata=order%3Dshared', [mine], 'nor under a filter both match');
  assert.deepEqual(listedIds((await c.get('/console/tasks/rows')).text), [mine]);
  const inspector = await c.get(`/console/tasks/${theirs}`);
  assert.equal(inspector.status, 404);
  assert.match(inspector.text, /does not exist, or it is not yours/);
  assert.equal(inspector.text.includes('shared'), false, 'nothing of the task shows');
  assert.equal((await c.post(`/console/tasks/${theirs}/cancel`)).status, 404);
  assert.equal((await c.post(`/console/tasks/${theirs}/again`, { keyId: h.keyId })).status, 404);
  assert.equal((await c.get('/console/tasks/tsk_nothing')).status, 404);
  const count = (await services.tasks.list(h.accountId, { limit: 10 })).tasks.length;
  assert.equal(count, 1, 'run again of their task made nothing');
});

test('XSS payloads in a prompt and metadata are shown only as escaped text', async (t) => {
  const h = await startService(t);
  const script = '<script>alert(1)</script>';
  const img = '"><img src=x onerror=alert(1)>';
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: `${script} ${img}`, model: 'auto', metadata: { note: img, [script]: 'k' } },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.taskId;
  await waitForTask(h, id);
  const c = await consoleSignIn(h);

  const pages = [
    await c.get(`/console/tasks/${id}`),
    await c.get(`/console/tasks?metadata=${encodeURIComponent(`note=${img}`)}`),
    await c.get(`/console/tasks?metadata=${encodeURIComponent(`x=${script}`)}&type=${encodeURIComponent(script)}`),
  ];
  for (const page of pages) {
    assert.equal(page.status, 200);
    assert.equal(page.text.includes('<script>alert(1)'), false, 'no raw script tag');
    assert.equal(page.text.includes('<img src=x'), false, 'no raw img tag');
    // Attribute values taken out (they hold the escaped payload as text), no tag has an onerror attribute.
    assert.equal(
      /<[^>]*\sonerror=/i.test(page.text.replace(/"[^"]*"/g, '""')),
      false,
      'no element carries an onerror attribute',
    );
  }
  const [inspector, filtered, typed] = pages;
  assert.ok(inspector.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the prompt shows as text');
  assert.ok(inspector.text.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the metadata shows as text');
  assert.deepEqual(listedIds(filtered.text), [id], 'the metadata filter finds it');
  assert.ok(
    filtered.text.includes('value="note=&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"'),
    'the filter keeps what was typed, escaped',
  );
  assert.ok(typed.text.includes('value="x=&lt;script&gt;alert(1)&lt;/script&gt;"'));
});
