import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { eventually, type Harness, startService } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { tempDir } from '../../helpers/temp-dir.js';

const START = Date.parse('2026-11-22T08:00:00.000Z');
const at = (offsetMs: number) => new Date(START + offsetMs).toISOString();

async function newKey(h: Harness, body: object = {}): Promise<{ apiKey: any; raw: string }> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data;
}

const statusWith = async (h: Harness, raw: string) => (await h.request('GET', '/tasks', { auth: raw })).status;
const listedIds = async (h: Harness) =>
  (await h.request('GET', '/api-key', { auth: h.token })).json.data.map((k: { id: string }) => k.id);

test('a key with expiresAt works until then; after, 401 UNAUTHORIZED and gone from reads, updates and deletes', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const { apiKey, raw } = await newKey(h, { expiresAt: '2026-11-22T09:10:00+01:00' });
  assert.equal(apiKey.expiresAt, at(600_000), 'normalized to UTC with milliseconds');
  assert.equal(await statusWith(h, raw), 200);
  clock.advance(599_999);
  assert.equal(await statusWith(h, raw), 200, 'valid until its last millisecond');
  clock.advance(1);
  const refused = await h.request('GET', '/tasks', { auth: raw });
  assert.equal(refused.status, 401);
  assert.equal(refused.json.code, 'UNAUTHORIZED');
  assert.equal((await h.request('GET', `/api-key/${apiKey.id}`, { auth: h.token })).json.code, 'API_KEY_NOT_FOUND');
  assert.deepEqual(await listedIds(h), [h.keyId]);
  assert.equal(
    (await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: h.token, body: { expiresAt: null } })).status,
    404,
  );
  assert.equal((await h.request('POST', `/api-key/${apiKey.id}/rotate`, { auth: h.token })).status, 404);
  assert.equal((await h.request('DELETE', `/api-key/${apiKey.id}`, { auth: h.token })).status, 404);
});

test('expiresAt must be a date-time in the future (create and PATCH)', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  for (const expiresAt of [at(0), at(-1000), '2020-01-01T00:00:00Z']) {
    for (const [method, path] of [
      ['POST', '/api-key'],
      ['PATCH', `/api-key/${h.keyId}`],
    ]) {
      const res = await h.request(method, path, { auth: h.token, body: { expiresAt } });
      assert.equal(res.status, 400, `${method} ${expiresAt}`);
      assert.deepEqual(res.json, { code: 'VALIDATION_ERROR', message: 'expiresAt must lie in the future' });
    }
  }
  for (const expiresAt of ['tomorrow', '2026-11-23', 1_800_000_000_000]) {
    const res = await h.request('POST', '/api-key', { auth: h.token, body: { expiresAt } });
    assert.equal(res.status, 400, String(expiresAt));
    assert.deepEqual(res.json.errors[0].path, ['expiresAt']);
  }
});

test('PATCH /api-key/{id}: changes name, expiry and spending limit; null removes; errors for nothing to change, bad fields, unknown or foreign keys', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const { apiKey, raw } = await newKey(h, { name: 'ci', spendingLimit: '5' });
  const patched = await h.request('PATCH', `/api-key/${apiKey.id}`, {
    auth: h.token,
    body: {
      name: 'renamed',
      expiresAt: at(3_600_000),
      spendingLimit: '7.5',
      spendingLimitPeriod: 'day',
      requestsPerMinute: 100,
    },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(patched.json.data, {
    ...apiKey,
    name: 'renamed',
    expiresAt: at(3_600_000),
    spendingLimit: '7.5',
    spendingLimitPeriod: 'day',
    requestsPerMinute: 100,
  });
  assert.deepEqual((await h.request('GET', `/api-key/${apiKey.id}`, { auth: h.token })).json.data, patched.json.data);

  const removed = await h.request('PATCH', `/api-key/${apiKey.id}`, {
    auth: h.token,
    body: { name: null, expiresAt: null, spendingLimit: null },
  });
  assert.equal(removed.status, 200);
  for (const field of ['name', 'expiresAt', 'spendingLimit']) assert.equal(field in removed.json.data, false, field);
  assert.equal(removed.json.data.requestsPerMinute, 100, 'fields left out are kept');
  assert.equal(await statusWith(h, raw), 200, 'the key still works');

  const nothing = await h.request('PATCH', `/api-key/${apiKey.id}`, {
    auth: h.token,
    body: { scopes: ['tasks:read'] },
  });
  assert.equal(nothing.status, 400);
  assert.equal(nothing.json.code, 'VALIDATION_ERROR');
  for (const body of [{ name: '' }, { spendingLimit: 'lots' }, { spendingLimitPeriod: 'year' }, { name: 5 }]) {
    const res = await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: h.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.success, false);
  }
  const malformed = await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: h.token, body: '{"name":' });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.text, 'Malformed JSON in request body');

  const unknown = await h.request('PATCH', '/api-key/key_nope', { auth: h.token, body: { name: 'x' } });
  assert.deepEqual([unknown.status, unknown.json], [404, { code: 'API_KEY_NOT_FOUND' }]);
  const { services } = h.server;
  const other = await services.accounts.create('other', 0);
  const otherToken = (await services.tokens.issueAccessToken(other.id, ['keys'], 3_600_000)).accessToken;
  assert.equal(
    (await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: otherToken, body: { name: 'mine' } })).status,
    404,
  );
  const byKey = await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: raw, body: { name: 'x' } });
  assert.equal(byKey.status, 403);
  assert.equal(byKey.json.code, 'SCOPE_ESCALATION');
  assert.equal((await h.request('PATCH', `/api-key/${apiKey.id}`, { body: { name: 'x' } })).status, 401);
  // A revoked key cannot be changed.
  await h.request('DELETE', `/api-key/${apiKey.id}`, { auth: h.token });
  assert.equal((await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: h.token, body: { name: 'x' } })).status, 404);
});

test('rotate: a new raw key with the same settings; the old key works through its grace and is refused after', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const { apiKey: old, raw: oldRaw } = await newKey(h, {
    name: 'ci',
    scopes: ['tasks:read'],
    spendingLimit: '3',
    spendingLimitPeriod: 'week',
    requestsPerMinute: 50,
    expiresAt: at(7 * 86_400_000),
  });
  clock.advance(1000);
  const res = await h.request('POST', `/api-key/${old.id}/rotate`, { auth: h.token, body: { graceSeconds: 60 } });
  assert.equal(res.status, 201, res.text);
  const { apiKey, raw, previous } = res.json.data;
  assert.match(raw, /^mak_[0-9A-Za-z]{43}$/);
  assert.notEqual(raw, oldRaw);
  assert.notEqual(apiKey.id, old.id);
  assert.equal(apiKey.rotatedFrom, old.id);
  assert.equal(apiKey.createdAt, at(1000));
  for (const field of [
    'userId',
    'name',
    'scopes',
    'spendingLimit',
    'spendingLimitPeriod',
    'requestsPerMinute',
    'expiresAt',
  ])
    assert.deepEqual(apiKey[field], old[field], field);
  assert.equal(previous.id, old.id);
  assert.equal(previous.expiresAt, at(61_000), 'the grace ends 60 s after the rotation');
  assert.deepEqual(await listedIds(h), [h.keyId, old.id, apiKey.id], 'the old key is live during its grace');

  assert.equal(await statusWith(h, raw), 200);
  clock.advance(59_999);
  assert.equal(await statusWith(h, oldRaw), 200, 'the old key works within the grace');
  clock.advance(1);
  assert.equal(await statusWith(h, oldRaw), 401, 'and not after');
  assert.equal(await statusWith(h, raw), 200);
  assert.deepEqual(await listedIds(h), [h.keyId, apiKey.id]);
});

test('rotate: graceSeconds 0 revokes the old key at once; the default grace is 24 h; a grace never outlives the old expiry', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const first = await newKey(h);
  const now = await h.request('POST', `/api-key/${first.apiKey.id}/rotate`, {
    auth: h.token,
    body: { graceSeconds: 0 },
  });
  assert.equal(now.status, 201);
  assert.equal(await statusWith(h, first.raw), 401);
  assert.equal(await statusWith(h, now.json.data.raw), 200);
  assert.equal(now.json.data.previous.expiresAt, undefined);
  assert.equal((await h.request('GET', `/api-key/${first.apiKey.id}`, { auth: h.token })).status, 404);

  const second = now.json.data.apiKey;
  const byDefault = await h.request('POST', `/api-key/${second.id}/rotate`, { auth: h.token });
  assert.equal(byDefault.status, 201);
  assert.equal(byDefault.json.data.previous.expiresAt, at(86_400_000));
  assert.equal(byDefault.json.data.apiKey.rotatedFrom, second.id);

  const soon = await newKey(h, { expiresAt: at(30_000) });
  const capped = await h.request('POST', `/api-key/${soon.apiKey.id}/rotate`, {
    auth: h.token,
    body: { graceSeconds: 3600 },
  });
  assert.equal(capped.json.data.previous.expiresAt, at(30_000));
  assert.equal(capped.json.data.apiKey.expiresAt, at(30_000), 'the new key keeps the expiry');
});

test('rotate errors: unknown, foreign or revoked key 404; a bad graceSeconds 400; an API key 403', async (t) => {
  const h = await startService(t);
  assert.deepEqual((await h.request('POST', '/api-key/key_nope/rotate', { auth: h.token })).json, {
    code: 'API_KEY_NOT_FOUND',
  });
  for (const graceSeconds of [-1, 1.5, '60', 30 * 86_400 + 1]) {
    const res = await h.request('POST', `/api-key/${h.keyId}/rotate`, { auth: h.token, body: { graceSeconds } });
    assert.equal(res.status, 400, String(graceSeconds));
    assert.deepEqual(res.json.errors[0].path, ['graceSeconds']);
  }
  const byKey = await h.request('POST', `/api-key/${h.keyId}/rotate`, { auth: h.apiKey });
  assert.equal(byKey.status, 403);
  const { services } = h.server;
  const other = await services.accounts.create('other', 0);
  const otherToken = (await services.tokens.issueAccessToken(other.id, ['keys'], 3_600_000)).accessToken;
  assert.equal((await h.request('POST', `/api-key/${h.keyId}/rotate`, { auth: otherToken })).status, 404);
  const { apiKey } = await newKey(h);
  await h.request('DELETE', `/api-key/${apiKey.id}`, { auth: h.token });
  assert.equal((await h.request('POST', `/api-key/${apiKey.id}/rotate`, { auth: h.token })).status, 404);
});

test('at 100 live keys: a rotation with a grace is refused (the old key still counts), one with grace 0 passes; expired keys do not count', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const { services } = h.server;
  const expiring = await services.apiKeys.create({ accountId: h.accountId, expiresAt: at(1000) });
  for (let i = 0; i < 98; i++) await services.apiKeys.create({ accountId: h.accountId });
  const full = await h.request('POST', '/api-key', { auth: h.token });
  assert.equal(full.json.code, 'API_KEY_LIMIT_REACHED');
  clock.advance(1000);
  const freed = await newKey(h); // the expired key no longer counts: this is the 100th
  void expiring;
  const graced = await h.request('POST', `/api-key/${freed.apiKey.id}/rotate`, {
    auth: h.token,
    body: { graceSeconds: 60 },
  });
  assert.equal(graced.status, 400);
  assert.equal(graced.json.code, 'API_KEY_LIMIT_REACHED');
  assert.equal(await statusWith(h, freed.raw), 200, 'a refused rotation leaves the old key as it was');
  const swapped = await h.request('POST', `/api-key/${freed.apiKey.id}/rotate`, {
    auth: h.token,
    body: { graceSeconds: 0 },
  });
  assert.equal(swapped.status, 201);
  assert.equal((await listedIds(h)).length, 100);
});

test('lastUsedAt: absent until the key is used, set when it authenticates, written at most once a minute', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const { apiKey, raw } = await newKey(h);
  assert.equal(apiKey.lastUsedAt, undefined);
  const lastUsed = async () =>
    (await h.request('GET', `/api-key/${apiKey.id}`, { auth: h.token })).json.data.lastUsedAt;

  clock.advance(5_000);
  assert.equal(await statusWith(h, raw), 200);
  await eventually(async () => (await lastUsed()) === at(5_000));
  clock.advance(30_000);
  assert.equal(await statusWith(h, raw), 200);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await lastUsed(), at(5_000), 'within the minute nothing is written');
  clock.advance(30_000);
  assert.equal(await statusWith(h, raw), 200);
  await eventually(async () => (await lastUsed()) === at(65_000));
  // The list shows it too.
  const listed = (await h.request('GET', '/api-key', { auth: h.token })).json.data.find(
    (k: { id: string }) => k.id === apiKey.id,
  );
  assert.equal(listed.lastUsedAt, at(65_000));
});

test('imgtask keys create/update/rotate/list with --requests-per-minute, --expires-at and --grace', async (t) => {
  const h = await startService(t);
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(h.storeConfig));
  const cli = (...args: string[]) => runCli(['--data', h.dataDir, '--config', configFile, 'keys', ...args]);

  const created = await cli(
    'create',
    '--account',
    'acme',
    '--name',
    'ci',
    '--requests-per-minute',
    '2',
    '--expires-at',
    '30d',
    '--json',
  );
  assert.equal(created.code, 0, created.stderr);
  const { apiKey, raw } = created.json;
  assert.equal(apiKey.requestsPerMinute, 2);
  const days = (Date.parse(apiKey.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 29.9 && days <= 30, `expires in 30 days, not ${days}`);
  for (let i = 0; i < 2; i++) assert.equal(await statusWith(h, raw), 200);
  assert.equal(await statusWith(h, raw), 429);

  const human = await cli('update', apiKey.id, '--requests-per-minute', '50', '--expires-at', '2099-01-01T00:00:00Z');
  assert.equal(human.code, 0, human.stderr);
  assert.equal(human.stdout.trim(), `updated ${apiKey.id}, 50 requests per minute, expires 2099-01-01T00:00:00.000Z`);
  assert.equal(await statusWith(h, raw), 200);

  const cleared = await cli(
    'update',
    apiKey.id,
    '--requests-per-minute',
    'none',
    '--expires-at',
    'none',
    '--name',
    'none',
    '--json',
  );
  assert.equal(cleared.code, 0, cleared.stderr);
  for (const field of ['requestsPerMinute', 'expiresAt', 'name']) assert.equal(field in cleared.json, false, field);

  const listed = await cli('list', '--account', 'acme');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /RPM\s+EXPIRES\s+LAST USED/);
  const row = listed.stdout.split('\n').find((line) => line.startsWith(apiKey.id))!;
  assert.match(row, /-\s+-\s+\d{4}-\d\d-\d\dT/, 'no limit, no expiry, and a last use');

  const rotated = await cli('rotate', apiKey.id, '--grace', '0', '--json');
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.equal(rotated.json.apiKey.rotatedFrom, apiKey.id);
  assert.equal(await statusWith(h, raw), 401);
  assert.equal(await statusWith(h, rotated.json.raw), 200);
  const graced = await cli('rotate', rotated.json.apiKey.id, '--grace', '1h');
  assert.equal(graced.code, 0, graced.stderr);
  // Off a terminal the new raw key is alone on stdout; what else there is to say goes to stderr.
  assert.match(graced.stdout, /^mak_\S+\n$/);
  assert.match(
    graced.stderr,
    new RegExp(
      `^created key_\\S+; ${rotated.json.apiKey.id} works until \\S+Z\\nThis is the only time the key is shown\\.\\n$`,
    ),
  );
  assert.equal(await statusWith(h, graced.stdout.trim()), 200);

  for (const [args, pattern] of [
    [
      ['create', '--account', 'acme', '--requests-per-minute', '0'],
      /--requests-per-minute must be a whole number from 1 to 1000000/,
    ],
    [['rotate', apiKey.id, '--grace', 'soon'], /--grace must be a duration/],
    [['create', '--account', 'acme', '--expires-at', '2020-01-01T00:00:00Z'], /expiresAt must lie in the future/],
  ] as const) {
    const res = await cli(...args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, pattern);
  }
});
