// imgtask generate|rate|alt|remove-bg|review|video --priority N --cancel-after D against a real server.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CliResult, runCli } from '../helpers/cli.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A key of the harness account made over POST /api-key, with `maxPriority`. */
async function keyWith(h: Harness, maxPriority: number): Promise<string> {
  const res = await h.request('POST', '/api-key', { auth: h.token, body: { name: `max ${maxPriority}`, maxPriority } });
  assert.equal(res.status, 201, res.text);
  return res.json.data.raw;
}

const getTask = async (h: Harness, id: string) =>
  (await h.request('GET', `/tasks/${id}`, { auth: h.apiKey })).json.data;
const taskCount = async (h: Harness) =>
  (await h.request('GET', '/tasks?limit=100', { auth: h.apiKey })).json.data.length;

/** The task a create command made: its id from the JSON it printed (created, sync answer or watched task). */
const createdId = (res: CliResult): string => res.json.taskId ?? res.json.task?.id ?? res.json.id;

test('each create command sends --priority: the task’s request.priority and priority are N', async (t) => {
  const h = await startService(t);
  const photo = join(await tempDir(t), 'photo.png');
  await writeFile(photo, await makeImage({ width: 120, height: 80 }));
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: await keyWith(h, 5) };
  for (const args of [
    ['generate', 'a lighthouse'],
    ['rate', photo, '--async'],
    ['alt', photo, '--async'],
    ['remove-bg', photo],
    ['review', photo, '--async'],
    ['video', 'a fox in snow', '--duration', '1', '--fps', '8'],
  ]) {
    const res = await runCli([...args, '--priority', '5', '--json'], env);
    assert.equal(res.code, 0, `${args[0]}: ${res.stderr}`);
    const task = await getTask(h, createdId(res));
    assert.equal(task.request.priority, 5, args[0]);
    assert.equal(task.priority, 5, args[0]);
  }
  const watched = await runCli(['generate', 'low', '--priority', '-3', '--watch', '--json'], env);
  assert.equal(watched.code, 0, watched.stderr);
  assert.equal(watched.json.priority, -3, 'the watched task shows its priority');
});

test('a --priority above the key’s maxPriority is refused with the server’s message and creates nothing', async (t) => {
  const h = await startService(t);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: await keyWith(h, 2) };
  const res = await runCli(['generate', 'a lighthouse', '--priority', '3', '--json'], env);
  assert.equal(res.code, 1, 'a refused request exits 1');
  assert.deepEqual(res.json.error, {
    code: 'VALIDATION_ERROR',
    status: 400,
    message: 'priority 3 is above the highest this key may ask for (maxPriority 2)',
  });
  assert.match(res.stderr, /VALIDATION_ERROR: priority 3 is above the highest this key may ask for \(maxPriority 2\)/);
  assert.equal(await taskCount(h), 0);
});

test('--cancel-after sets the task’s deadline about that far ahead; an expired task fails clearly with exit 3', async (t) => {
  const h = await startService(t);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const before = Date.now();
  const res = await runCli(['generate', 'a lighthouse', '--cancel-after', '1h30m', '--json'], env);
  const after = Date.now();
  assert.equal(res.code, 0, res.stderr);
  const task = await waitForTask(h, res.json.taskId);
  const at = Date.parse(task.deadlineAt);
  assert.ok(at >= before + 5_400_000 && at <= after + 5_400_000, `deadlineAt ${task.deadlineAt} is about now + 1h30m`);
  assert.equal(task.status, 'completed', 'a task done before its deadline is untouched');

  // A task whose item outlives its deadline, followed with tasks watch.
  const created = await h.request('POST', '/test/tasks', {
    auth: h.apiKey,
    body: { items: 1, delayMs: 60_000 },
    headers: { 'cancel-after': '1s' },
  });
  assert.equal(created.status, 201, created.text);
  const watched = await runCli(['tasks', 'watch', created.json.data.taskId, '--json'], env);
  assert.equal(watched.code, 3, 'a failed task exits 3');
  assert.equal(watched.json.errors[0].code, 'TASK_EXPIRED');
  assert.match(
    watched.stderr,
    new RegExp(
      `failed: TASK_EXPIRED: the task’s deadline \\(Cancel-After\\) passed before any item finished; nothing was charged \\(deadline ${watched.json.deadlineAt.replaceAll('.', '\\.')}\\)`,
    ),
  );
});

test('bad --priority and --cancel-after values are usage errors (exit 2) and nothing is sent', async (t) => {
  const h = await startService(t);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const cases: [string[], RegExp][] = [
    [['generate', 'x', '--priority', '11'], /--priority must be a whole number from -10 to 10, not "11"/],
    [
      ['rate', 'https://example.com/a.png', '--priority', '-11'],
      /--priority must be a whole number from -10 to 10, not "-11"/,
    ],
    [
      ['alt', 'https://example.com/a.png', '--priority', '1.5'],
      /--priority must be a whole number from -10 to 10, not "1.5"/,
    ],
    [
      ['review', 'https://example.com/a.png', '--priority', 'high'],
      /--priority must be a whole number from -10 to 10, not "high"/,
    ],
    [
      ['remove-bg', 'https://example.com/a.png', '--cancel-after', '500ms'],
      /--cancel-after: 500ms is out of range: from 1s to 24h/,
    ],
    [['video', 'x', '--cancel-after', '25h'], /--cancel-after: 25h is out of range: from 1s to 24h/],
    [['generate', 'x', '--cancel-after', 'soon'], /--cancel-after: "soon" is not a duration such as 30s, 5m or 1h30m/],
    [['generate', 'x', '--cancel-after', '1h30'], /--cancel-after: "1h30" is not a duration such as 30s, 5m or 1h30m/],
  ];
  for (const [args, pattern] of cases) {
    const res = await runCli([...args, '--json'], env);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.equal(res.json.error.code, 'VALIDATION_ERROR', args.join(' '));
    assert.match(res.json.error.message, pattern, args.join(' '));
  }
  assert.equal(await taskCount(h), 0);
});
