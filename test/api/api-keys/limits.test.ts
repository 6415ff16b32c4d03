import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Harness, startService } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

/** 10 s into a minute: the fixed window resets in 50 s. */
const START = Date.parse('2026-11-22T08:00:10.000Z');

async function limitedKey(h: Harness, requestsPerMinute: number): Promise<{ id: string; raw: string }> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body: { name: 'limited', requestsPerMinute } });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.data.apiKey.requestsPerMinute, requestsPerMinute);
  return { id: res.json.data.apiKey.id, raw: res.json.data.raw };
}

const headersOf = (res: { headers: Headers }) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
  policy: res.headers.get('ratelimit-policy'),
});

test('a key with requestsPerMinute N: N requests pass with RateLimit-Remaining counting down, then 429 with Retry-After', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const key = await limitedKey(h, 3);

  for (const remaining of ['2', '1', '0']) {
    const res = await h.request('GET', '/tasks', { auth: key.raw });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(headersOf(res), { limit: '3', remaining, reset: '50', policy: '3;w=60' });
    assert.equal(res.headers.get('retry-after'), null, 'Retry-After only on the 429');
  }
  clock.advance(5_000);
  const refused = await h.request('GET', '/tasks', { auth: key.raw });
  assert.equal(refused.status, 429);
  assert.equal(refused.json.code, 'RATE_LIMIT_EXCEEDED');
  assert.match(refused.json.message, /3 requests per minute/);
  assert.equal(refused.headers.get('retry-after'), '45');
  assert.deepEqual(headersOf(refused), { limit: '3', remaining: '0', reset: '45', policy: '3;w=60' });

  // Another key of the same account is not limited, and carries no RateLimit headers.
  const other = await h.request('GET', '/tasks', { auth: h.apiKey });
  assert.equal(other.status, 200);
  assert.equal(other.headers.get('ratelimit-limit'), null);
  // Nor is an access token of the account.
  assert.equal((await h.request('GET', '/api-key', { auth: h.token })).status, 200);
});

test('the window resets: after the minute ends the key passes again with a full allowance', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const key = await limitedKey(h, 2);
  for (let i = 0; i < 2; i++) assert.equal((await h.request('GET', '/tasks', { auth: key.raw })).status, 200);
  assert.equal((await h.request('GET', '/tasks', { auth: key.raw })).status, 429);
  clock.advance(50_000); // 08:01:00.000, the next window
  const next = await h.request('GET', '/tasks', { auth: key.raw });
  assert.equal(next.status, 200);
  assert.deepEqual(headersOf(next), { limit: '2', remaining: '1', reset: '60', policy: '2;w=60' });
});

test('every answer to a limited key carries the headers: errors, schema rejections, refused scopes', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const key = await limitedKey(h, 10);
  const cases: [string, string, string, unknown, number][] = [
    ['an unknown task', 'GET', '/tasks/tsk_nope', undefined, 404],
    ['a schema rejection (raw answer)', 'POST', '/image/generate', { count: 99 }, 400],
    ['malformed JSON (raw answer)', 'POST', '/image/generate', '{not json', 400],
    ['a route an API key may not use', 'GET', '/api-key', undefined, 403],
  ];
  let remaining = 10;
  for (const [name, method, path, body, status] of cases) {
    const res = await h.request(method, path, { auth: key.raw, body });
    assert.equal(res.status, status, name);
    remaining -= 1;
    assert.deepEqual(
      headersOf(res),
      { limit: '10', remaining: String(remaining), reset: '50', policy: '10;w=60' },
      name,
    );
  }
});

test('PATCH raises the limit at once, and null removes it', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const key = await limitedKey(h, 1);
  assert.equal((await h.request('GET', '/tasks', { auth: key.raw })).status, 200);
  assert.equal((await h.request('GET', '/tasks', { auth: key.raw })).status, 429);

  const raised = await h.request('PATCH', `/api-key/${key.id}`, { auth: h.token, body: { requestsPerMinute: 5 } });
  assert.equal(raised.status, 200, raised.text);
  assert.equal(raised.json.data.requestsPerMinute, 5);
  const after = await h.request('GET', '/tasks', { auth: key.raw });
  assert.equal(after.status, 200, 'the two counted requests leave three of five');
  assert.deepEqual(headersOf(after), { limit: '5', remaining: '2', reset: '50', policy: '5;w=60' });

  const removed = await h.request('PATCH', `/api-key/${key.id}`, { auth: h.token, body: { requestsPerMinute: null } });
  assert.equal(removed.status, 200);
  assert.equal('requestsPerMinute' in removed.json.data, false);
  for (let i = 0; i < 8; i++) {
    const res = await h.request('GET', '/tasks', { auth: key.raw });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-limit'), null);
  }
});

test('requestsPerMinute must be a whole number from 1 to 1000000 (create and PATCH)', async (t) => {
  const h = await startService(t);
  for (const requestsPerMinute of [0, -1, 1.5, '10', 1_000_001]) {
    const created = await h.request('POST', '/api-key', { auth: h.token, body: { requestsPerMinute } });
    assert.equal(created.status, 400, String(requestsPerMinute));
    assert.equal(created.json.success, false);
    assert.deepEqual(created.json.errors[0].path, ['requestsPerMinute']);
    const patched = await h.request('PATCH', `/api-key/${h.keyId}`, { auth: h.token, body: { requestsPerMinute } });
    assert.equal(patched.status, 400, String(requestsPerMinute));
    assert.deepEqual(patched.json.errors[0].path, ['requestsPerMinute']);
  }
});

test('the count is per key: two limited keys of one account have their own windows', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const a = await limitedKey(h, 2);
  const b = await limitedKey(h, 2);
  for (let i = 0; i < 2; i++) assert.equal((await h.request('GET', '/tasks', { auth: a.raw })).status, 200);
  assert.equal((await h.request('GET', '/tasks', { auth: a.raw })).status, 429);
  const first = await h.request('GET', '/tasks', { auth: b.raw });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('ratelimit-remaining'), '1');
});

test('parallel requests of a limited key: exactly the limit passes', async (t) => {
  const clock = new ManualClock(START);
  const h = await startService(t, { clock });
  const key = await limitedKey(h, 7);
  const answers = await Promise.all(Array.from({ length: 20 }, () => h.request('GET', '/tasks', { auth: key.raw })));
  assert.equal(answers.filter((res) => res.status === 200).length, 7);
  assert.equal(answers.filter((res) => res.status === 429).length, 13);
  assert.deepEqual(answers.map((res) => res.headers.get('ratelimit-remaining')).sort(), [
    ...['0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'],
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
  ]);
});
