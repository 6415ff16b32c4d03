import assert from 'node:assert/strict';
import { test } from 'node:test';
import { videoDimensions } from '../../../src/task-types/video-size.js';

const CAPS = {
  maxInputs: 1,
  negativePrompt: true,
  maxDurationS: 10,
  maxFps: 30,
  maxSize: '1280x720',
  nativeSize: '640x360',
};

test('auto is the native size; ratios are the image sizes scaled down, keeping the ratio, to fit the largest frame', () => {
  assert.deepEqual(videoDimensions('auto', CAPS), { width: 640, height: 360 });
  assert.deepEqual(videoDimensions({ type: 'auto' }, CAPS), { width: 640, height: 360 });
  assert.deepEqual(videoDimensions('16:9', CAPS), { width: 1274, height: 720 });
  assert.deepEqual(
    videoDimensions('landscape_wide', CAPS),
    { width: 1274, height: 720 },
    'a named preset is its ratio',
  );
  assert.deepEqual(
    videoDimensions('9:16', CAPS),
    { width: 720, height: 1274 },
    'portrait frames are capped by the transposed maximum',
  );
  assert.deepEqual(videoDimensions({ type: 'aspect_ratio', aspectRatio: '1:1' }, CAPS), { width: 720, height: 720 });
  assert.deepEqual(
    videoDimensions('21:9', CAPS),
    { width: 1280, height: 548 },
    'the long side is the limit for wide ratios',
  );
});

test('every size is even (H.264 4:2:0) and within the cap, for every preset and cap', () => {
  const presets = [
    'square',
    'portrait',
    'landscape',
    'portrait_tall',
    'landscape_wide',
    '1:1',
    '2:3',
    '3:2',
    '3:4',
    '4:3',
    '4:5',
    '5:4',
    '9:16',
    '16:9',
    '21:9',
    '2:1',
    '1:2',
  ];
  for (const maxSize of ['1280x720', '320x180', '1920x1080', '854x480', '101x77']) {
    for (const preset of presets) {
      const { width, height } = videoDimensions(preset, { ...CAPS, maxSize });
      const [maxW, maxH] = maxSize.split('x').map(Number);
      assert.equal(width % 2, 0, `${preset} at ${maxSize}`);
      assert.equal(height % 2, 0, `${preset} at ${maxSize}`);
      assert.ok(
        Math.max(width, height) <= Math.max(maxW, maxH) && Math.min(width, height) <= Math.min(maxW, maxH),
        `${preset} at ${maxSize}: ${width}x${height}`,
      );
    }
  }
  assert.deepEqual(
    videoDimensions('auto', { ...CAPS, nativeSize: '641x359' }),
    { width: 640, height: 358 },
    'an odd native size is made even',
  );
});
