import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { Dashboard, type DashboardData } from '../../../../src/tui/screens/Dashboard.js';
import { eventually } from '../../../helpers/harness.js';

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
