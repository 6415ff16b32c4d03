import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskView } from '../../../src/client/http-client.js';
import { plainText, taskLines, urlResultLine } from '../../../src/tui/task-lines.js';

test('a rate or alt item that failed shows its code and the reason the API gave', () => {
  const failed = {
    status: 'failed',
    url: 'http://127.0.0.1:3000/a.png',
    error: { code: 'FETCH_FAILED', message: 'cannot fetch the image: 127.0.0.1 is an address user URLs may not reach' },
  } as const;
  assert.equal(
    plainText([urlResultLine(failed)]),
    '  http://127.0.0.1:3000/a.png: ✗ FETCH_FAILED: cannot fetch the image: 127.0.0.1 is an address user URLs may not reach',
  );
  assert.equal(
    plainText([urlResultLine({ status: 'failed', url: 'img_1', error: { code: 'FETCH_FAILED' } })]),
    '  img_1: ✗ FETCH_FAILED',
    'no message: the code alone',
  );
  const task = {
    id: 'tsk_1',
    type: 'image.alt',
    status: 'completed',
    cost: '0',
    priority: 0,
    result: { results: [failed] },
  } as unknown as TaskView;
  assert.match(
    plainText(taskLines(task)),
    /\n {2}http:\/\/127\.0\.0\.1:3000\/a\.png: ✗ FETCH_FAILED: cannot fetch the image: 127\.0\.0\.1 is an address/,
  );
});
