import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { LivePreview } from '../../../../src/domain/media-types.js';
import { createPreviewRelay, MAX_PREVIEW_BYTES } from '../../../../src/engine/runner/preview-relay.js';

function relay(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const sent: string[] = [];
  const r = createPreviewRelay(
    (taskId, index, preview) => sent.push(`${taskId}/${index} ${preview.data.toString()}`),
    500,
  );
  const jpeg = (text: string): LivePreview => ({ data: Buffer.from(text), mimeType: 'image/jpeg' });
  return { r, sent, jpeg };
}

test('an item sends its first preview at once, then at most one per interval: the newest', (t) => {
  const { r, sent, jpeg } = relay(t);
  r.report('tsk_a', 0, jpeg('one'));
  assert.deepEqual(sent, ['tsk_a/0 one']);
  r.report('tsk_a', 0, jpeg('two'));
  r.report('tsk_a', 0, jpeg('three'));
  // Another item is throttled on its own.
  r.report('tsk_a', 1, jpeg('other'));
  assert.deepEqual(sent, ['tsk_a/0 one', 'tsk_a/1 other']);
  t.mock.timers.tick(500);
  assert.deepEqual(sent, ['tsk_a/0 one', 'tsk_a/1 other', 'tsk_a/0 three']);
  t.mock.timers.tick(5000);
  assert.equal(sent.length, 3);
});

test('an ended item or a settled task sends nothing more and is forgotten; a preview too large is dropped', (t) => {
  const { r, sent, jpeg } = relay(t);
  r.report('tsk_a', 0, jpeg('one'));
  r.report('tsk_a', 0, jpeg('held'));
  r.report('tsk_b', 0, jpeg('b'));
  r.report('tsk_b', 0, jpeg('b held'));
  r.forgetItem('tsk_a', 0);
  r.forget('tsk_b');
  t.mock.timers.tick(5000);
  assert.deepEqual(sent, ['tsk_a/0 one', 'tsk_b/0 b']);
  assert.equal(r.size(), 0);
  r.report('tsk_c', 0, { data: Buffer.alloc(MAX_PREVIEW_BYTES + 1), mimeType: 'image/jpeg' });
  assert.equal(sent.length, 2);
  assert.equal(r.size(), 0);
});
