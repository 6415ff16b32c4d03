import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderToString } from 'ink';
import type { TaskView } from '../../../../src/client/http-client.js';
import { TaskWatch } from '../../../../src/tui/components/TaskWatch.js';
import { taskLines } from '../../../../src/tui/task-lines.js';

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
