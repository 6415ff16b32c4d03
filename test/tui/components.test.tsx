import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderToString } from 'ink';
import { render } from 'ink-testing-library';
import type { TaskView } from '../../src/client/http-client.js';
import { TaskWatch } from '../../src/tui/components/TaskWatch.js';
import { Dashboard, type DashboardData } from '../../src/tui/screens/Dashboard.js';
import { taskLines } from '../../src/tui/task-lines.js';
import { eventually } from '../helpers/harness.js';

test('TaskWatch shows a spinner line per image while pending, then the report: sizes, URLs, rating, destination, saved files, per-item errors', () => {
  const pending = renderToString(
    <TaskWatch taskId="tsk_1" type="image.generate" expected={3} elapsedMs={1234} spinner="⠋" />,
    { columns: 80 },
  );
  assert.match(pending, /tsk_1 image\.generate ⠋ pending 1\.2s/);
  assert.equal(pending.match(/image \d ⠋ working/g)?.length, 3);

  const generated = {
    id: 'tsk_1',
    type: 'image.generate',
    status: 'completed',
    result: {
      model: 'm',
      magic_prompt: { positive: 'a quiet harbour at dawn, soft light' },
      images: [
        {
          status: 'success',
          id: 'img_a',
          size: '1024x1024',
          url: 'http://h/images/img_a.webp',
          service_url: 'http://h/images/img_a.webp',
          cost: '0.001',
          rating: { status: 'success', level: 'sfw' },
          destination: {
            name: 'media',
            status: 'failed',
            error: { code: 'DESTINATION_FAILED', message: 'bucket refused' },
          },
          savedTo: 'out/img_a.webp',
        },
        { status: 'failed', error: { code: 'RESTRICTED_CONTENT', message: 'refused' } },
      ],
    },
  } as unknown as TaskView;
  const done = renderToString(
    <TaskWatch
      taskId="tsk_1"
      type="image.generate"
      expected={2}
      elapsedMs={4100}
      spinner="⠋"
      report={taskLines(generated, { elapsed: '4.1s' })}
    />,
    { columns: 120 },
  );
  assert.match(done, /tsk_1 image\.generate completed 4\.1s/);
  assert.match(done, /prompt rewritten: a quiet harbour at dawn, soft light/);
  assert.match(
    done,
    /image 1 ✓ 1024x1024 http:\/\/h\/images\/img_a\.webp\n\s+rating sfw\n\s+destination media ✗ DESTINATION_FAILED: bucket refused\n\s+saved out\/img_a\.webp/,
  );
  assert.match(done, /image 2 ✗ RESTRICTED_CONTENT: refused/);
  assert.doesNotMatch(done, /working/);

  const failedTask = {
    id: 'tsk_2',
    type: 'image.remove_background',
    status: 'failed',
    cost: '0',
    errors: [{ code: 'INVALID_INPUT', message: 'no image' }],
  } as unknown as TaskView;
  const failed = renderToString(
    <TaskWatch
      taskId="tsk_2"
      type="image.remove_background"
      expected={1}
      elapsedMs={10}
      spinner="⠋"
      report={taskLines(failedTask)}
    />,
  );
  assert.match(failed, /failed/);
  assert.match(failed, /INVALID_INPUT: no image/);
});

const sample = (): DashboardData => ({
  url: 'http://127.0.0.1:8080',
  generatedAt: '2026-11-22T09:50:00.000Z',
  counts: { pending: 2, completed: 40, failed: 3 },
  throughputPerMinute: 12,
  failures: [
    { code: 'PROVIDER_ERROR', count: 2 },
    { code: 'TASK_EXPIRED', count: 1 },
  ],
  accounts: [{ name: 'acme', balance: '99.5', reserved: '0.2', available: '99.3' }],
  webhooks: {
    pending: 1,
    delivered: 30,
    failed: 2,
    disabled: [
      { id: 'wh_1', url: 'https://hooks.example/x', reason: 'no successful delivery since 2026-11-17T00:00:00.000Z' },
    ],
  },
  tasks: Array.from({ length: 12 }, (_, i) => ({
    id: `tsk_${String(i).padStart(22, '0')}`,
    type: i % 2 ? 'image.rate' : 'image.generate',
    status: i === 1 ? ('failed' as const) : ('completed' as const),
    account: 'acme',
    cost: '0.001',
    createdAt: '2026-11-22T09:49:00.000Z',
    updatedAt: '2026-11-22T09:49:01.000Z',
    errorCode: i === 1 ? 'FETCH_FAILED' : undefined,
  })),
});

test('the dashboard fits 80 columns and 24 rows and shows counts, throughput, failures, balances and webhook health', () => {
  const { lastFrame, unmount } = render(<Dashboard data={sample()} onQuit={() => undefined} />);
  const frame = lastFrame()!;
  unmount();
  const lines = frame.split('\n');
  assert.ok(lines.length <= 24, `${lines.length} lines`);
  for (const line of lines) assert.ok([...line].length <= 80, `too wide: ${line}`);
  assert.match(frame, /pending 2 completed 40 failed 3\s+12\/min/);
  assert.match(frame, /PROVIDER_ERROR 2\s+TASK_EXPIRED 1/);
  assert.match(frame, /acme 99\.3\/99\.5 \(held 0\.2\)/);
  assert.match(frame, /pending 1 delivered 30 failed 2 disabled 1/);
  assert.match(frame, /wh_1 https:\/\/hooks\.example\/x/);
  assert.match(frame, /> tsk_0000000000000000000000/);
});

test('dashboard keys: j/k move the selection, enter opens details, q quits', async () => {
  let quit = false;
  const { lastFrame, stdin, unmount } = render(<Dashboard data={sample()} onQuit={() => (quit = true)} />);
  const shows = (pattern: RegExp, why?: string) =>
    eventually(() => pattern.test(lastFrame() ?? '')).catch(() => assert.match(lastFrame()!, pattern, why));
  await shows(/> tsk_0000000000000000000000/);
  // Keys reach the screen once its input handler listens on stdin.
  await eventually(() => stdin.listenerCount('readable') + stdin.listenerCount('data') > 0);
  stdin.write('j');
  await shows(/> tsk_0000000000000000000001/);
  stdin.write('k');
  await shows(/> tsk_0000000000000000000000/);
  stdin.write('j');
  await shows(/> tsk_0000000000000000000001/);
  stdin.write('\r');
  await shows(/error FETCH_FAILED/, 'details of the selected (failed) task');
  for (let i = 0; i < 20; i++) stdin.write('j');
  await shows(/> tsk_0000000000000000000011/, 'the list scrolls and stops at the last task');
  stdin.write('q');
  await eventually(() => quit);
  unmount();
});

test('the dashboard shows each lane: queued, running of its capacity, paused ones first and marked, the rest by queued, clipped to 80 columns', () => {
  const data = sample();
  data.lanes = [
    { lane: 'image.rate', queued: 0, running: 1, capacity: 4, paused: false },
    { lane: 'test', queued: 5, running: 2, capacity: 2, paused: false },
    { lane: 'gpu-1+gpu-2', queued: 12, running: 0, capacity: 2, paused: true },
  ];
  const { lastFrame, unmount } = render(<Dashboard data={data} onQuit={() => undefined} />);
  const frame = lastFrame()!;
  unmount();
  const lines = frame.split('\n');
  assert.ok(lines.length <= 24, `${lines.length} lines`);
  for (const line of lines) assert.ok([...line].length <= 80, `too wide: ${line}`);
  assert.match(frame, /^Lanes gpu-1\+gpu-2 12 queued 0\/2 PAUSED {2}test 5 queued 2\/2 {2}image\.rate 0 queued …$/m);

  const none = render(<Dashboard data={{ ...sample(), lanes: [] }} onQuit={() => undefined} />);
  assert.match(none.lastFrame()!, /^Lanes none busy$/m);
  none.unmount();
  const older = render(<Dashboard data={sample()} onQuit={() => undefined} />);
  assert.doesNotMatch(older.lastFrame()!, /^Lanes/m, 'a server that sends no lanes: no line');
  older.unmount();
});

test('the dashboard says when it cannot reach the server', () => {
  const { lastFrame, unmount } = render(
    <Dashboard data={null} error="connect ENOENT admin.sock" onQuit={() => undefined} />,
  );
  assert.match(lastFrame()!, /cannot reach the server: connect ENOENT admin\.sock/);
  unmount();
});

test('TaskWatch with progress: a bar with percent, queue position and estimates, and each item done, failed or working with its fraction', () => {
  const now = Date.parse('2026-11-22T09:50:00.000Z');
  const running = renderToString(
    <TaskWatch
      taskId="tsk_1"
      type="image.generate"
      expected={3}
      elapsedMs={2000}
      spinner="⠋"
      now={now}
      progress={{
        total: 4,
        finished: 2,
        items: [
          { status: 'success' },
          { status: 'failed' },
          { status: 'pending', fraction: 0.5 },
          { status: 'pending' },
        ],
        estimatedFinishAt: '2026-11-22T09:50:40.000Z',
      }}
    />,
    { columns: 100 },
  );
  assert.match(running, /█{13}░{7} 62% {2}ends ~40s/, running);
  assert.match(running, /image 1 ✓ done/);
  assert.match(running, /image 2 ✗ failed/);
  assert.match(running, /image 3 ⠋ working 50%/);
  assert.match(running, /image 4 ⠋ working\n|image 4 ⠋ working$/, 'one line per item of the task, not per expected');

  const queued = renderToString(
    <TaskWatch
      taskId="tsk_2"
      type="video.generate"
      expected={1}
      elapsedMs={100}
      spinner="⠋"
      now={now}
      progress={{
        total: 1,
        finished: 0,
        items: [{ status: 'pending' }],
        queuePosition: 2,
        estimatedStartAt: '2026-11-22T09:52:00.000Z',
        estimatedFinishAt: '2026-11-22T10:30:00.000Z',
      }}
    />,
    { columns: 100 },
  );
  assert.match(queued, /░{20} 0% {2}2 ahead {2}starts ~2m {2}ends ~40m/, queued);
  assert.match(queued, /video 1 ⠋ working/);
  const next = renderToString(
    <TaskWatch
      taskId="tsk_3"
      type="image.generate"
      expected={1}
      elapsedMs={100}
      spinner="⠋"
      now={now}
      progress={{ total: 1, finished: 0, items: [{ status: 'pending' }], queuePosition: 0 }}
    />,
  );
  assert.match(next, /0% {2}next in queue/);
});

test('the dashboard shows how far pending tasks have come: the queue position or percent in the list, the bar and estimates in the details', async () => {
  const data = sample();
  data.tasks[0] = {
    ...data.tasks[0],
    status: 'pending',
    cost: '0',
    progress: {
      total: 2,
      finished: 1,
      items: [{ status: 'success' }, { status: 'pending', fraction: 0.5 }],
      estimatedFinishAt: '2026-11-22T09:50:30.000Z',
    },
  };
  data.tasks[1] = {
    ...data.tasks[1],
    status: 'pending',
    cost: '0',
    errorCode: undefined,
    progress: { total: 1, finished: 0, items: [{ status: 'pending' }], queuePosition: 3 },
  };
  const { lastFrame, stdin, unmount } = render(<Dashboard data={data} onQuit={() => undefined} />);
  const frame = lastFrame()!;
  for (const line of frame.split('\n')) assert.ok([...line].length <= 80, `too wide: ${line}`);
  assert.match(frame, /tsk_0000000000000000000000 .* pending .* 75%/);
  assert.match(frame, /tsk_0000000000000000000001 .* pending .* q3/);
  await eventually(() => stdin.listenerCount('readable') + stdin.listenerCount('data') > 0);
  stdin.write('\r');
  await eventually(() => /█{15}░{5} 75% {2}ends ~30s/.test(lastFrame() ?? '')).catch(() =>
    assert.match(lastFrame()!, /75% {2}ends ~30s/),
  );
  unmount();
});
