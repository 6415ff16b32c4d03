import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { runCli } from '../helpers/cli.js';
import { eventually, type Harness, startService, waitForTask } from '../helpers/harness.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY1 = Date.parse('2026-11-20T23:40:00.000Z');
const DAY2 = Date.parse('2026-11-21T00:10:00.000Z');

/** Creates a task and waits for it to settle; answers the settled task. */
async function settled(h: Harness, auth: string, path: string, body: unknown): Promise<any> {
  const res = await h.request('POST', path, { auth, body });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId);
}

/**
 * Five tasks over two UTC days: day 1: 2 × 0.5 by the harness key, 3 × 0.1 (one item failing) by
 * a second key, one image.generate (placeholder, 0.001); day 2: 0.25 by an access token, and a
 * task failing whole (free) by the harness key.
 */
async function fiveTasks(t: Parameters<typeof startService>[0]) {
  const clock = new ManualClock(DAY1);
  const h = await startService(t, { clock });
  const second = await h.server.services.apiKeys.create({ accountId: h.accountId, name: 'second' });
  await settled(h, h.apiKey, '/test/tasks', { items: 2, price: '0.5' });
  await settled(h, second.raw, '/test/tasks', { items: 3, price: '0.1', failItems: [1] });
  const generated = await settled(h, h.apiKey, '/image/generate', { prompt: 'a lighthouse' });
  clock.set(DAY2);
  await settled(h, h.token, '/test/tasks', { items: 1, price: '0.25' });
  const failed = await settled(h, h.apiKey, '/test/tasks', { items: 1, price: '1', failItems: [0] });
  assert.equal(failed.status, 'failed');
  clock.advance(1);
  return {
    h,
    clock,
    secondKeyId: second.apiKey.id,
    model: generated.result.model as string,
    generateCost: generated.cost as string,
  };
}

const usage = (h: Harness, query: string, auth = h.token) => h.request('GET', `/usage${query}`, { auth });

test('GET /usage groups the charges by day, key, type and model; sorted by key, null last; totals agree', async (t) => {
  const { h, secondKeyId, model, generateCost } = await fiveTasks(t);
  assert.equal(generateCost, '0.001');
  const range = '?from=2026-11-01&to=2026-12-01';
  const total = { cost: '1.451', tasks: 5, items: 6 };

  const byDay = await usage(h, `${range}&groupBy=day`);
  assert.equal(byDay.status, 200, byDay.text);
  const { storage, ...charges } = byDay.json.data;
  assert.equal(
    storage.bytes,
    storage.outputs.bytes + storage.uploads.bytes,
    'beside the charges, the bytes stored now (test/api/usage-storage.test.ts)',
  );
  assert.deepEqual(charges, {
    from: '2026-11-01T00:00:00.000Z',
    to: '2026-12-01T00:00:00.000Z',
    groupBy: 'day',
    total,
    groups: [
      { key: '2026-11-20', cost: '1.201', tasks: 3, items: 5 },
      { key: '2026-11-21', cost: '0.25', tasks: 2, items: 1 },
    ],
  });
  assert.deepEqual((await usage(h, range)).json.data.groups, byDay.json.data.groups, 'day is the default');

  const byKey = await usage(h, `${range}&groupBy=key`);
  const keyGroups = [
    { key: h.keyId, cost: '1.001', tasks: 3, items: 3 },
    { key: secondKeyId, cost: '0.2', tasks: 1, items: 2 },
  ].sort((a, b) => (a.key < b.key ? -1 : 1));
  assert.deepEqual(byKey.json.data.groups, [...keyGroups, { key: null, cost: '0.25', tasks: 1, items: 1 }]);
  assert.deepEqual(byKey.json.data.total, total);

  const byType = await usage(h, `${range}&groupBy=type`);
  assert.deepEqual(byType.json.data.groups, [
    { key: 'image.generate', cost: '0.001', tasks: 1, items: 1 },
    { key: 'test.echo', cost: '1.45', tasks: 4, items: 5 },
  ]);

  const byModel = await usage(h, `${range}&groupBy=model`);
  assert.deepEqual(byModel.json.data.groups, [
    { key: model, cost: '0.001', tasks: 1, items: 1 },
    { key: null, cost: '1.45', tasks: 4, items: 5 },
  ]);
  assert.deepEqual(byModel.json.data.total, total);
});

test('GET /usage ranges: from inclusive, to exclusive, by settlement time; offsets; the default is the last 30 days', async (t) => {
  const { h, clock } = await fiveTasks(t);
  const day2 = '2026-11-21T00:10:00.000Z';
  // The two day-2 tasks settled at exactly DAY2.
  const from = await usage(h, `?from=${day2}&to=2026-11-22`);
  assert.deepEqual([from.json.data.total.tasks, from.json.data.from], [2, day2]);
  const to = await usage(h, `?from=2026-11-20&to=${day2}`);
  assert.deepEqual(to.json.data.total, { cost: '1.201', tasks: 3, items: 5 });
  const offset = await usage(h, `?from=2026-11-21T01:10:00%2B01:00&to=2026-11-21T00:10:00.001Z`);
  assert.equal(offset.status, 200, offset.text);
  assert.equal(offset.json.data.from, day2, 'an offset is turned into UTC');
  assert.equal(offset.json.data.total.tasks, 2);
  const before = await usage(h, '?from=2026-10-01&to=2026-11-20');
  const { storage: _, ...none } = before.json.data;
  assert.deepEqual(none, {
    from: '2026-10-01T00:00:00.000Z',
    to: '2026-11-20T00:00:00.000Z',
    groupBy: 'day',
    total: { cost: '0', tasks: 0, items: 0 },
    groups: [],
  });

  const recent = await usage(h, '');
  assert.equal(recent.json.data.to, new Date(clock.now()).toISOString());
  assert.equal(recent.json.data.from, new Date(clock.now() - 30 * 86_400_000).toISOString());
  assert.equal(recent.json.data.total.tasks, 5);
  clock.set(DAY2 + 31 * 86_400_000);
  const later = (await h.server.services.tokens.issueAccessToken(h.accountId, ['manage'], 3_600_000)).accessToken;
  assert.equal(
    (await usage(h, '', later)).json.data.total.tasks,
    0,
    'a month later, the default range holds none of them',
  );
  assert.equal((await usage(h, '?from=2026-11-01', later)).json.data.total.tasks, 5, 'from alone: to is now');
});

test('GET /usage refuses bad values with 400 VALIDATION_ERROR', async (t) => {
  const h = await startService(t);
  const bad = [
    '?groupBy=week',
    '?groupBy=',
    '?from=yesterday',
    '?from=2026-02-30',
    '?from=2026-11-01T00:00:00',
    '?from=2026-11-01T25:00:00Z',
    '?to=2026-13-01',
    '?from=2026-11-02&to=2026-11-01',
    '?from=2026-11-01&to=2026-11-01',
    '?from=2025-01-01&to=2026-11-01',
    `?from=${'9'.repeat(100)}`,
  ];
  for (const query of bad) {
    const res = await usage(h, query);
    assert.equal(res.status, 400, query);
    assert.equal(res.json.code, 'VALIDATION_ERROR', query);
    assert.equal(typeof res.json.message, 'string', query);
  }
  assert.match((await usage(h, '?from=2025-01-01&to=2026-11-01')).json.message, /366 days/);
  assert.equal((await usage(h, '?from=2025-11-01&to=2026-11-02')).status, 200, '366 days is allowed');
});

test('GET /usage never answers 5xx to generated queries: 200 or 400 VALIDATION_ERROR', async (t) => {
  const h = await startService(t);
  const when = fc.oneof(
    fc.string(),
    fc
      .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    fc.constantFrom('2026-02-29', '0000-01-01', '9999-12-31', '2026-11-01T00:00:00+14:00', '-1', ''),
  );
  const query = fc.record(
    { from: when, to: when, groupBy: fc.oneof(fc.constantFrom('day', 'key', 'type', 'model'), fc.string()) },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(query, async (q) => {
      const res = await usage(h, `?${new URLSearchParams(q as Record<string, string>)}`);
      assert.ok(
        res.status === 200 || (res.status === 400 && res.json.code === 'VALIDATION_ERROR'),
        `${JSON.stringify(q)} → ${res.status} ${res.text}`,
      );
    }),
    { numRuns: 300 },
  );
});

test('GET /usage takes an access token with manage, and shows only its own account', async (t) => {
  const h = await startService(t);
  await settled(h, h.apiKey, '/test/tasks', { items: 1, price: '0.5' });
  const key = await usage(h, '', h.apiKey);
  assert.equal(key.status, 403);
  assert.equal(key.json.code, 'SCOPE_ESCALATION');
  const readOnly = (await h.server.services.tokens.issueAccessToken(h.accountId, ['keys'], 60_000)).accessToken;
  const scoped = await usage(h, '', readOnly);
  assert.equal(scoped.status, 403);
  assert.equal(scoped.json.code, 'INSUFFICIENT_SCOPE');
  assert.equal((await h.request('GET', '/usage', { auth: null })).status, 401);

  const { services } = h.server;
  const other = await services.accounts.create('other', 10_000_000);
  const otherKey = await services.apiKeys.create({ accountId: other.id });
  const created = await h.request('POST', '/test/tasks', { auth: otherKey.raw, body: { items: 2, price: '0.3' } });
  await eventually(async () => (await services.store.tasks.get(created.json.data.taskId))?.status === 'completed');
  const otherToken = (await services.tokens.issueAccessToken(other.id, ['manage'], 60_000)).accessToken;
  const mine = (await usage(h, '?groupBy=key')).json.data;
  assert.deepEqual(mine.groups, [{ key: h.keyId, cost: '0.5', tasks: 1, items: 1 }]);
  const theirs = (await usage(h, '?groupBy=key', otherToken)).json.data;
  assert.deepEqual(theirs.groups, [{ key: otherKey.apiKey.id, cost: '0.6', tasks: 1, items: 2 }]);
});

test('imgtask usage --csv: a header row, one CRLF-ended row per group; --json the report; bad options exit 2', async (t) => {
  const { h, secondKeyId } = await fiveTasks(t);
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(h.storeConfig));
  const cli = (...args: string[]) =>
    runCli([
      '--data',
      h.dataDir,
      '--config',
      configFile,
      'usage',
      '--account',
      'acme',
      '--from',
      '2026-11-01',
      '--to',
      '2026-12-01',
      ...args,
    ]);

  const csv = await cli('--csv');
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(csv.stdout, 'day,cost_usd,tasks,items\r\n2026-11-20,1.201,3,5\r\n2026-11-21,0.25,2,1\r\n');
  const byKey = await cli('--csv', '--group-by', 'key');
  const lines = byKey.stdout.split('\r\n');
  assert.equal(lines[0], 'key,cost_usd,tasks,items');
  assert.ok(lines.includes(`${secondKeyId},0.2,1,2`));
  assert.equal(lines.at(-2), ',0.25,1,1', 'a null key is an empty field, last');
  assert.equal(lines.at(-1), '');

  const json = await cli('--json', '--group-by', 'type');
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(json.json.total, { cost: '1.451', tasks: 5, items: 6 });
  assert.deepEqual(
    json.json.groups.map((g: { key: string }) => g.key),
    ['image.generate', 'test.echo'],
  );
  const human = await cli();
  assert.match(human.stdout, /total\s+1\.451\s+5\s+6/);

  assert.equal((await cli('--group-by', 'week')).code, 2);
  const badRange = await cli('--to', '2026-10-01');
  assert.equal(badRange.code, 2);
  assert.match(badRange.stderr, /must be before/);
});

test('usage CSV quotes fields holding a comma, a quote or a line break (RFC 4180)', async () => {
  const { usageCsv } = await import('../../src/cli/commands/usage.js');
  const report = {
    from: '2026-11-01T00:00:00.000Z',
    to: '2026-12-01T00:00:00.000Z',
    groupBy: 'model' as const,
    total: { cost: '3', tasks: 3, items: 3 },
    groups: [
      { key: 'a,b', cost: '1', tasks: 1, items: 1 },
      { key: 'say "hi"', cost: '1', tasks: 1, items: 1 },
      { key: 'two\nlines', cost: '1', tasks: 1, items: 1 },
    ],
    storage: { at: '2026-12-01T00:00:00.000Z', bytes: 0, outputs: { bytes: 0 }, uploads: { count: 0, bytes: 0 } },
  };
  assert.equal(
    usageCsv(report),
    'model,cost_usd,tasks,items\r\n"a,b",1,1,1\r\n"say ""hi""",1,1,1\r\n"two\nlines",1,1,1\r\n',
  );
});
