import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { exposureOf, laplacianVariance, measureQuality } from '../../../src/media/quality.js';

const grey = (width: number, height: number, pixel: (x: number, y: number) => number) =>
  Uint8Array.from({ length: width * height }, (_, i) => pixel(i % width, Math.floor(i / width)));
const png = (width: number, height: number, pixel: (x: number, y: number) => number) =>
  sharp(Buffer.from(grey(width, height, pixel)), { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();

test('the variance of the Laplacian is 0 on flat and linear images, and known on a checkerboard', () => {
  assert.equal(
    laplacianVariance(
      grey(16, 16, () => 90),
      16,
      16,
    ),
    0,
  );
  assert.equal(
    laplacianVariance(
      grey(16, 16, (x) => x * 10),
      16,
      16,
    ),
    0,
    'a linear ramp has no second derivative',
  );
  // A 0/100 checkerboard: every interior Laplacian is ±400, half each, so the variance is 400².
  assert.equal(
    laplacianVariance(
      grey(16, 16, (x, y) => ((x + y) % 2) * 100),
      16,
      16,
    ),
    160_000,
  );
  assert.equal(
    laplacianVariance(
      grey(2, 2, () => 1),
      2,
      2,
    ),
    0,
    'too small to have an interior',
  );
});

test('exposure: mean brightness and the shares clipped to black (≤ 2) and white (≥ 253)', () => {
  const pixels = Uint8Array.from([0, 2, 3, 128, 252, 253, 255, 255]);
  const { brightness, shadows, highlights } = exposureOf(pixels);
  assert.equal(brightness, (0 + 2 + 3 + 128 + 252 + 253 + 255 + 255) / 8);
  assert.equal(shadows, 2 / 8);
  assert.equal(highlights, 3 / 8);
});

test('measureQuality reads size, sharpness and exposure; blur lowers sharpness, scaling to 512 px never enlarges', async () => {
  const noise = (x: number, y: number) => 60 + ((x * 7919 + y * 104729) % 97) + (x % 8 < 4 ? 40 : 0);
  const sharpImage = await png(800, 400, noise);
  const sharpQ = await measureQuality(sharpImage);
  assert.deepEqual([sharpQ.width, sharpQ.height], [800, 400]);
  const blurredQ = await measureQuality(await sharp(sharpImage).blur(6).png().toBuffer());
  assert.ok(sharpQ.sharpness > 100 * blurredQ.sharpness, `${sharpQ.sharpness} vs ${blurredQ.sharpness}`);
  const flat = await measureQuality(await png(100, 60, () => 250));
  assert.deepEqual(flat, { width: 100, height: 60, sharpness: 0, brightness: 250, shadows: 0, highlights: 0 });
  const checker = await measureQuality(await png(100, 60, (x, y) => ((x + y) % 2) * 100));
  assert.equal(
    checker.sharpness,
    160_000,
    'measured at its own size: a small image is not enlarged (interpolation would smooth it)',
  );
  const big = await measureQuality(await png(1024, 1024, (x, y) => ((x + y) % 2) * 100));
  assert.ok(big.sharpness < 160_000, 'a large image is scaled down to 512 px first');
  const black = await measureQuality(await png(40, 40, () => 0));
  assert.deepEqual([black.brightness, black.shadows, black.highlights], [0, 1, 0]);
  const white = await measureQuality(await png(40, 40, () => 255));
  assert.deepEqual([white.brightness, white.shadows, white.highlights], [255, 0, 1]);
});

test('transparent pixels count as mid grey, neither clipped nor edged', async () => {
  const clear = await sharp({
    create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
  })
    .png()
    .toBuffer();
  const q = await measureQuality(clear);
  assert.deepEqual([q.brightness, q.shadows, q.highlights, q.sharpness], [128, 0, 0, 0]);
});
