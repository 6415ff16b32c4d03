import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskView } from '../../../src/client/http-client.js';
import { imagesOf, plainText, taskLines } from '../../../src/tui/task-lines.js';

test("where --out saved remove-background's image is part of its report, as for generate", () => {
  const image = {
    id: 'img_1',
    url: 'http://h/images/img_1.png',
    service_url: 'http://h/images/img_1.png',
    size: '64x64',
    format: 'png',
  };
  const task = {
    id: 'tsk_1',
    type: 'image.remove_background',
    status: 'completed',
    cost: '0.02',
    priority: 0,
    result: { image },
  } as unknown as TaskView;
  // What `--out` does: notes the saved path on the items it is given; the report reads them again.
  for (const item of imagesOf(task)) item.savedTo = 'cut/img_1.png';
  assert.deepEqual(plainText(taskLines(task)).split('\n').slice(1), [
    '  image 1 ✓ 64x64 http://h/images/img_1.png',
    '    saved cut/img_1.png',
  ]);
});
