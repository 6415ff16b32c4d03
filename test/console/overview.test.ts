import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../helpers/console.js';
import { accountOf, type Harness, startService, waitForTask } from '../helpers/harness.js';

/** Creates a test.echo task with `auth`; answers its id. */
async function create(h: Harness, auth: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
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

/** A money card's value, by its label. */
const card = (html: string, label: string): string | undefined =>
  new RegExp(`<div class="label">${label.replace(/[()]/g, '\\$&')}</div><div class="value">([^<]*)</div>`).exec(
    html,
  )?.[1];

/** "3.2" → "3.20", as the console shows USD. */
const usd = (amount: string): string => {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
};

test('a new account sees the empty state, then the balance, reserved and available of its account view once a task holds a reserve', async (t) => {
  const h = await startService(t);
  const web = await consoleSignIn(h);
  const empty = await web.get('/console');
  assert.equal(empty.status, 200);
  assert.match(
    empty.text,
    /No tasks yet: try the <a href="\/console\/playground">Playground<\/a>, or <a href="\/console\/keys">create a key<\/a>/,
  );

  await create(h, h.apiKey, { items: 2, price: '0.75', delayMs: 60_000 });
  const account = await accountOf(h);
  assert.equal(account.reserved, '1.5');
  const page = await web.get('/console');
  assert.equal(card(page.text, 'Balance (USD)'), usd(account.balance));
  assert.equal(card(page.text, 'Reserved by pending tasks (USD)'), usd(account.reserved));
  assert.equal(card(page.text, 'Available (USD)'), usd(account.available));
  assert.doesNotMatch(page.text, /No tasks yet/);
});

test("a key's spend in its current period shows against its limit after a task settles, and today's spend matches GET /usage", async (t) => {
  const h = await startService(t);
  const limited = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: 'limited',
    spendingLimit: 10_000_000,
    spendingLimitPeriod: 'week',
  });
  const before = await (await consoleSignIn(h)).get('/console');
  assert.match(before.text, /<strong>limited<\/strong>: 0\.00 of 10\.00 USD this week/);

  await waitForTask(h, await create(h, limited.raw, { items: 1, price: '3.2' }));
  const web = await consoleSignIn(h);
  const page = await web.get('/console');
  assert.match(page.text, /<strong>limited<\/strong>: 3\.20 of 10\.00 USD this week \(charged and reserved\)/);
  assert.match(page.text, /<meter [^>]*max="10"[^>]*value="3\.2"/);

  const today = new Date().toISOString().slice(0, 10);
  const usage = await h.request('GET', `/usage?from=${today}&groupBy=day`, { auth: h.token });
  assert.equal(usage.status, 200, usage.text);
  assert.equal(card(page.text, 'Today (USD, UTC)'), usd(usage.json.data.total.cost));
  assert.equal(card(page.text, 'Today (USD, UTC)'), '3.20');
});

test('the 24-hour chart counts the tasks by status, and the latest failures show their codes linked to their tasks', async (t) => {
  const h = await startService(t);
  await waitForTask(h, await create(h, h.apiKey, { items: 1 }));
  await waitForTask(h, await create(h, h.apiKey, { items: 1 }));
  const failed = await create(h, h.apiKey, { items: 1, failItems: [0], failCode: 'RESTRICTED_CONTENT' });
  assert.equal((await waitForTask(h, failed)).status, 'failed');
  const partly = await create(h, h.apiKey, { items: 2, failItems: [1], failCode: 'INVALID_PROMPT' });
  assert.equal((await waitForTask(h, partly)).status, 'completed');
  await create(h, h.apiKey, { items: 1, delayMs: 60_000 });

  const page = await (await consoleSignIn(h)).get('/console');
  assert.equal(page.status, 200);
  const chart = chartData(page.text, 'tasks-24h');
  assert.equal(chart.labels.length, 24);
  const total = (label: string) => chart.series.find((s) => s.label === label)!.values.reduce((a, b) => a + b, 0);
  assert.deepEqual(
    { completed: total('Completed'), failed: total('Failed'), pending: total('Pending') },
    { completed: 3, failed: 1, pending: 1 },
  );
  assert.match(page.text, /<th scope="col">Hour<\/th>/, 'the chart has its table');

  assert.match(
    page.text,
    new RegExp(
      `<a href="/console/tasks/${failed}" class="mono">${failed}</a></td><td>test.echo</td><td><span class="badge failed">RESTRICTED_CONTENT</span>`,
    ),
  );
  assert.match(
    page.text,
    new RegExp(
      `<a href="/console/tasks/${partly}" class="mono">${partly}</a><span class="muted"> item 2</span></td><td>test.echo</td><td><span class="badge failed">INVALID_PROMPT</span>`,
    ),
    'its second item, numbered from 1 as the CLI numbers items',
  );
});

test('the overview references only same-origin scripts, each served', async (t) => {
  const h = await startService(t);
  await waitForTask(h, await create(h, h.apiKey, { items: 1 }));
  const web = await consoleSignIn(h);
  const page = await web.get('/console');
  const scripts = [...page.text.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
  assert.ok(scripts.length >= 3, 'console.js, chart.js and charts.js');
  for (const [, attributes, body] of scripts) {
    assert.equal(body, '', 'no inline script');
    const src = /src="([^"]+)"/.exec(attributes)?.[1];
    assert.match(src ?? '', /^\/console\/assets\/[\w.-]+\.js$/);
    assert.equal((await web.get(src!)).status, 200);
  }
  assert.match(
    page.text,
    /\/console\/assets\/chart\.[0-9a-f]+\.js"[\s\S]*\/console\/assets\/charts\.[0-9a-f]+\.js"/,
    'Chart.js loads before the charts',
  );
});

test('a key name with markup shows as text on the overview', async (t) => {
  const h = await startService(t);
  const payload = '<img src=x onerror=alert(1)>';
  await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: payload,
    spendingLimit: 5_000_000,
    spendingLimitPeriod: 'day',
  });
  const page = await (await consoleSignIn(h)).get('/console');
  assert.equal(page.status, 200);
  assert.ok(!page.text.includes(payload), 'the name is never markup');
  assert.match(page.text, /<strong>&lt;img src=x onerror=alert\(1\)&gt;<\/strong>: 0\.00 of 5\.00 USD today/);
});
