import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';

/** Creates a test.echo task with `auth` and waits for it to settle. */
async function settle(h: Harness, auth: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId);
}

/** The JSON a chart's canvas carries in its data-chart attribute (HTML-escaped, as any attribute). */
function chartData(html: string, id: string): { labels: string[]; series: { label: string; values: number[] }[] } {
  const tag = new RegExp(`<canvas[^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  assert.ok(tag, `the page has the chart ${id}`);
  const attribute = /data-chart="([^"]*)"/.exec(tag)![1];
  const text = attribute
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return JSON.parse(text);
}

const DAY_MS = 86_400_000;
const day = (millis: number) => new Date(millis).toISOString().slice(0, 10);

/** The last 30 days, today included (`to` is excluded, as GET /usage reads it). */
function lastMonth(): { from: string; to: string; today: string } {
  const tomorrow = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
  return { from: day(tomorrow - 30 * DAY_MS), to: day(tomorrow), today: day(Date.now()) };
}

/**
 * Three settled tasks of two keys: the harness key (2 × 0.5, and one failing whole: free) and "second" (3 × 0.1, one
 * item failing).
 */
async function someUsage(h: Harness) {
  const second = await h.server.services.apiKeys.create({ accountId: h.accountId, name: 'second' });
  await settle(h, h.apiKey, { items: 2, price: '0.5' });
  await settle(h, second.raw, { items: 3, price: '0.1', failItems: [1] });
  await settle(h, h.apiKey, { items: 1, price: '1', failItems: [0] });
  return second;
}

/** A CSV's rows, cells unquoted (a simple reader: enough for what the console writes). */
function csvRows(text: string): string[][] {
  return text
    .split(/\r\n/)
    .filter((line) => line !== '')
    .map((line) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)]
        .slice(0, -1)
        .map(([, cell]) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell)),
    );
}

test('the usage page charts spend and tasks per day, key and type by default over the last 30 days, each chart with its table', async (t) => {
  const h = await startService(t);
  const web = await consoleSignIn(h);
  const empty = await web.get('/console/usage');
  assert.equal(empty.status, 200);
  assert.match(empty.text, /No usage in this range/);

  const second = await someUsage(h);
  const { from, to, today } = lastMonth();
  const page = await web.get('/console/usage');
  assert.equal(page.status, 200);
  assert.match(page.text, new RegExp(`<input id="usage-from" name="from" type="date" value="${from}"`));
  assert.match(page.text, new RegExp(`<input id="usage-to" name="to" type="date" value="${to}"`));

  const byDay = chartData(page.text, 'usage-day');
  assert.equal(byDay.labels.length, 30, 'every day of the range, quiet ones too');
  const api = (await h.request('GET', `/usage?from=${from}&to=${to}&groupBy=day`, { auth: h.token })).json.data;
  const index = byDay.labels.indexOf(today);
  assert.equal(byDay.series[0].values[index], Number(api.groups[0].cost));
  assert.equal(byDay.series[1].values[index], api.groups[0].tasks);
  assert.deepEqual([api.groups[0].cost, api.groups[0].tasks], ['1.2', 3]);

  const byKey = chartData(page.text, 'usage-key');
  const keyCost = Object.fromEntries(byKey.labels.map((label, i) => [label, byKey.series[0].values[i]]));
  assert.deepEqual(keyCost, { harness: 1, second: 0.2 }, 'keys by name');
  assert.ok(!page.text.includes(`<th scope="row">${second.apiKey.id}</th>`), 'a live key is named, not shown by id');
  const byType = chartData(page.text, 'usage-type');
  assert.deepEqual(byType.labels, ['test.echo']);
  assert.deepEqual(
    byType.series.map((s) => s.values),
    [[1.2], [3]],
  );
  for (const heading of ['Day', 'Key', 'Type'])
    assert.match(
      page.text,
      new RegExp(`<th scope="col">${heading}</th><th scope="col" class="num">Cost \\(USD\\)</th>`),
      `the ${heading} chart has its table`,
    );
  for (const [, src] of page.text.matchAll(/<script[^>]*src="([^"]+)"/g))
    assert.match(src, /^\/console\/assets\//, 'same-origin scripts only');
});

test('the CSV export has the rows of GET /usage for the same range, and neutralises a key name that is a formula', async (t) => {
  const h = await startService(t);
  await someUsage(h);
  const formula = await h.server.services.apiKeys.create({ accountId: h.accountId, name: '=HYPERLINK("x")' });
  await settle(h, formula.raw, { items: 1, price: '0.25' });
  const web = await consoleSignIn(h);
  const { from, to } = lastMonth();

  const csv = await web.get(`/console/usage.csv?from=${from}&to=${to}&groupBy=day`);
  assert.equal(csv.status, 200, csv.text);
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(csv.headers.get('content-disposition'), `attachment; filename="imgtask-usage-${from}-${to}-day.csv"`);
  const api = (await h.request('GET', `/usage?from=${from}&to=${to}&groupBy=day`, { auth: h.token })).json.data;
  const [header, ...rows] = csvRows(csv.text);
  assert.deepEqual(header, ['day', 'cost_usd', 'tasks', 'items']);
  assert.deepEqual(
    rows,
    api.groups.map((g: any) => [g.key, g.cost, String(g.tasks), String(g.items)]),
  );

  const byKey = await web.get(`/console/usage.csv?from=${from}&to=${to}&groupBy=key`);
  assert.ok(byKey.text.includes(`"'=HYPERLINK(""x"")"`), byKey.text);
  const keyRows = csvRows(byKey.text);
  assert.deepEqual(keyRows[0], ['key', 'name', 'cost_usd', 'tasks', 'items']);
  assert.deepEqual(keyRows.find((row) => row[0] === formula.apiKey.id)?.slice(1), [
    `'=HYPERLINK("x")`,
    '0.25',
    '1',
    '1',
  ]);
  for (const row of keyRows)
    for (const cell of row) assert.doesNotMatch(cell, /^[=+@-]/, 'no cell a spreadsheet would run');
  assert.deepEqual(
    keyRows.slice(1).map((row) => row[0]),
    (await h.request('GET', `/usage?from=${from}&to=${to}&groupBy=key`, { auth: h.token })).json.data.groups.map(
      (g: any) => g.key ?? '',
    ),
  );
});

test('an invalid range shows the usage page with a notice and what was typed; the CSV refuses it', async (t) => {
  const h = await startService(t);
  const web = await consoleSignIn(h);
  const reversed = await web.get('/console/usage?from=2026-12-01&to=2026-11-01');
  assert.equal(reversed.status, 400);
  assert.match(
    reversed.text,
    /<div class="notice error" role="alert"><strong>VALIDATION_ERROR<\/strong>: from \(2026-12-01T00:00:00.000Z\) must be before to/,
  );
  assert.match(reversed.text, /name="from" type="date" value="2026-12-01"/);
  assert.match(reversed.text, /name="to" type="date" value="2026-11-01"/);

  const notADate = await web.get('/console/usage?from=2026-02-30&to=2026-03-02');
  assert.equal(notADate.status, 400);
  assert.match(notADate.text, /VALIDATION_ERROR<\/strong>: from must be an ISO 8601 date/);

  const csv = await web.get('/console/usage.csv?from=2026-11-01&to=2026-12-01&groupBy=color');
  assert.equal(csv.status, 400);
  assert.match(csv.text, /VALIDATION_ERROR/);
  assert.doesNotMatch(csv.headers.get('content-type') ?? '', /csv/);
});

test('the usage page and its CSV need a session: without one they redirect to sign-in', async (t) => {
  const h = await startService(t);
  for (const path of ['/console/usage', '/console/usage.csv']) {
    const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.match(res.headers.get('location') ?? '', /^\/console\/sign-in\?next=/);
  }
});

test('a session without the manage scope (a pasted token) is refused usage, as GET /usage refuses the token, and the overview says why its spend is missing', async (t) => {
  const h = await startService(t);
  const { accessToken } = await h.server.services.tokens.issueAccessToken(h.accountId, ['tasks:read'], 3_600_000);
  assert.equal((await h.request('GET', '/usage', { auth: accessToken })).status, 403);
  const { cookie } = await h.server.services.consoleSessions.signInWithToken(accessToken);
  const web = consoleClient(h, cookie);
  for (const path of ['/console/usage', '/console/usage.csv']) {
    const refused = await web.get(path);
    assert.equal(refused.status, 403, path);
    assert.match(refused.text, /INSUFFICIENT_SCOPE/);
  }
  const overview = await web.get('/console');
  assert.equal(overview.status, 200);
  assert.match(overview.text, /Charges by period need the manage scope/);
  assert.match(overview.text, /No tasks yet/, 'tasks:read is held: the tasks part shows');
});
