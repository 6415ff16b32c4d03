import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { type Harness, startService } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

async function newKey(h: Harness, body: object = {}): Promise<{ apiKey: any; raw: string }> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data;
}

const getKey = async (h: Harness, id: string) =>
  (await h.request('GET', `/api-key/${id}`, { auth: h.token })).json.data;
const listedKey = async (h: Harness, id: string) =>
  (await h.request('GET', '/api-key', { auth: h.token })).json.data.find((key: { id: string }) => key.id === id);

test('POST /api-key takes maxConcurrent and maxPriority; every view of the key shows them, null and 0 when unset', async (t) => {
  const h = await startService(t);
  const { apiKey } = await newKey(h, { name: 'batch', maxConcurrent: 4, maxPriority: -3 });
  assert.equal(apiKey.maxConcurrent, 4);
  assert.equal(apiKey.maxPriority, -3);
  assert.deepEqual(await getKey(h, apiKey.id), apiKey);
  assert.deepEqual(await listedKey(h, apiKey.id), apiKey);

  const plain = await newKey(h);
  assert.equal(plain.apiKey.maxConcurrent, null, 'no bound');
  assert.equal(plain.apiKey.maxPriority, 0, 'the default');
  const nulls = await newKey(h, { maxConcurrent: null, maxPriority: null });
  assert.deepEqual(
    [nulls.apiKey.maxConcurrent, nulls.apiKey.maxPriority],
    [null, 0],
    'null on create is the same as absent',
  );
  const harnessKey = await getKey(h, h.keyId);
  assert.deepEqual(
    [harnessKey.maxConcurrent, harnessKey.maxPriority],
    [null, 0],
    'a key made before the settings existed',
  );

  const edges = await newKey(h, { maxConcurrent: 1, maxPriority: 10 });
  assert.deepEqual([edges.apiKey.maxConcurrent, edges.apiKey.maxPriority], [1, 10]);
  const lowest = await newKey(h, { maxPriority: -10 });
  assert.equal(lowest.apiKey.maxPriority, -10);
});

test('PATCH /api-key/{id}: sets maxConcurrent and maxPriority, null removes them, other settings are kept', async (t) => {
  const h = await startService(t);
  const { apiKey, raw } = await newKey(h, { name: 'ci', requestsPerMinute: 60, maxConcurrent: 2 });

  const set = await h.request('PATCH', `/api-key/${apiKey.id}`, {
    auth: h.token,
    body: { maxConcurrent: 8, maxPriority: 5 },
  });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.json.data, { ...apiKey, maxConcurrent: 8, maxPriority: 5 });
  assert.deepEqual(await getKey(h, apiKey.id), set.json.data);

  const onlyPriority = await h.request('PATCH', `/api-key/${apiKey.id}`, { auth: h.token, body: { maxPriority: -2 } });
  assert.equal(onlyPriority.json.data.maxConcurrent, 8, 'a field left out is kept');
  assert.equal(onlyPriority.json.data.maxPriority, -2);

  const removed = await h.request('PATCH', `/api-key/${apiKey.id}`, {
    auth: h.token,
    body: { maxConcurrent: null, maxPriority: null },
  });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.json.data, { ...apiKey, maxConcurrent: null, maxPriority: 0 });
  assert.deepEqual(await listedKey(h, apiKey.id), removed.json.data);
  assert.equal((await h.request('GET', '/tasks', { auth: raw })).status, 200, 'the key still works');
});

test('maxConcurrent and maxPriority out of range are schema rejections on create and PATCH', async (t) => {
  const h = await startService(t);
  const cases: Array<[object, string, string]> = [
    [{ maxConcurrent: 0 }, 'maxConcurrent', 'too_small'],
    [{ maxConcurrent: -1 }, 'maxConcurrent', 'too_small'],
    [{ maxConcurrent: 1.5 }, 'maxConcurrent', 'invalid_type'],
    [{ maxConcurrent: '4' }, 'maxConcurrent', 'invalid_type'],
    [{ maxConcurrent: 1_000_001 }, 'maxConcurrent', 'too_big'],
    [{ maxPriority: 11 }, 'maxPriority', 'too_big'],
    [{ maxPriority: -11 }, 'maxPriority', 'too_small'],
    [{ maxPriority: 2.5 }, 'maxPriority', 'invalid_type'],
    [{ maxPriority: 'high' }, 'maxPriority', 'invalid_type'],
  ];
  for (const [method, path] of [
    ['POST', '/api-key'],
    ['PATCH', `/api-key/${h.keyId}`],
  ]) {
    for (const [body, field, code] of cases) {
      const res = await h.request(method, path, { auth: h.token, body });
      const what = `${method} ${JSON.stringify(body)}`;
      assert.equal(res.status, 400, what);
      assert.equal(res.json.success, false, what);
      assert.deepEqual(res.json.errors[0].path, [field], what);
      assert.equal(res.json.errors[0].code, code, what);
    }
  }
  assert.equal((await h.request('GET', '/api-key', { auth: h.token })).json.data.length, 1, 'nothing was created');
  assert.deepEqual(
    [(await getKey(h, h.keyId)).maxConcurrent, (await getKey(h, h.keyId)).maxPriority],
    [null, 0],
    'nothing was changed',
  );
});

test('a rotated key keeps maxConcurrent and maxPriority', async (t) => {
  const h = await startService(t);
  const { apiKey: old } = await newKey(h, { name: 'rotating', maxConcurrent: 3, maxPriority: 7 });
  const res = await h.request('POST', `/api-key/${old.id}/rotate`, { auth: h.token, body: { graceSeconds: 60 } });
  assert.equal(res.status, 201, res.text);
  const { apiKey, previous } = res.json.data;
  assert.deepEqual([apiKey.maxConcurrent, apiKey.maxPriority], [3, 7]);
  assert.deepEqual([previous.maxConcurrent, previous.maxPriority], [3, 7]);
  assert.deepEqual(await getKey(h, apiKey.id), apiKey);
});

test('imgtask keys create and update with --max-concurrent and --max-priority; none removes; list shows both', async (t) => {
  const h = await startService(t);
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(h.storeConfig));
  const cli = (...args: string[]) => runCli(['--data', h.dataDir, '--config', configFile, 'keys', ...args]);

  const created = await cli(
    'create',
    '--account',
    'acme',
    '--name',
    'batch',
    '--max-concurrent',
    '4',
    '--max-priority',
    '-5',
    '--json',
  );
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = created.json;
  assert.deepEqual([apiKey.maxConcurrent, apiKey.maxPriority], [4, -5]);
  assert.deepEqual(await getKey(h, apiKey.id), apiKey, 'the API sees what the CLI set');

  const human = await cli('update', apiKey.id, '--max-concurrent', '6', '--max-priority', '3');
  assert.equal(human.code, 0, human.stderr);
  assert.equal(human.stdout.trim(), `updated ${apiKey.id}, at most 6 running at once, priority up to 3`);

  const listed = await cli('list', '--account', 'acme');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /PERIOD\s+MAX CONCURRENT\s+MAX PRIORITY\s+RPM/);
  assert.match(listed.stdout.split('\n').find((line) => line.startsWith(apiKey.id))!, /month\s+6\s+3\s+-/);
  assert.match(
    listed.stdout.split('\n').find((line) => line.startsWith(h.keyId))!,
    /month\s+-\s+0\s+-/,
    'no bound and the default',
  );

  const cleared = await cli('update', apiKey.id, '--max-concurrent', 'none', '--max-priority', 'none', '--json');
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.deepEqual([cleared.json.maxConcurrent, cleared.json.maxPriority], [null, 0]);
  const plain = await cli('update', apiKey.id, '--name', 'renamed');
  assert.equal(plain.stdout.trim(), `updated ${apiKey.id}`, 'the defaults are not spelled out');

  for (const [args, pattern] of [
    [
      ['create', '--account', 'acme', '--max-concurrent', '0'],
      /--max-concurrent must be a whole number from 1 to 1000000, not "0"/,
    ],
    [
      ['create', '--account', 'acme', '--max-priority', '11'],
      /--max-priority must be a whole number from -10 to 10, not "11"/,
    ],
    [['update', apiKey.id, '--max-priority', 'top'], /--max-priority must be a whole number from -10 to 10, not "top"/],
    [['update', apiKey.id, '--max-concurrent', '2.5'], /--max-concurrent must be a whole number/],
  ] as const) {
    const res = await cli(...args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, pattern);
  }
  assert.deepEqual(
    [(await getKey(h, apiKey.id)).maxConcurrent, (await getKey(h, apiKey.id)).maxPriority],
    [null, 0],
    'refused flags change nothing',
  );
});
