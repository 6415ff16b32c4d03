import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { framesProblem, frameTolerance } from '../../../src/media/video-frames.js';
import { mp4Codec, probeVideo } from '../../../src/media/video-probe.js';
import { webpTiming } from '../../../src/media/video-timing.js';
import { webpToMp4 } from '../../../src/media/video-webp.js';
import { decodeVideo, mp4Boxes } from '../../helpers/video-check.js';

const ffmpegPath = bundledFfmpegPath();

type Rgb = [number, number, number];
/** Frame i's flat colour: far enough from its neighbours that a lossy codec keeps them apart. */
const colour = (i: number): Rgb => [(40 + 50 * i) % 256, (200 + 30 * i) % 256, (90 + 70 * i) % 256];

/** An animated WebP made by sharp (libwebp's animation encoder, as SaveAnimatedWEBP uses), one flat colour a frame. */
function animatedWebp(width: number, height: number, colours: Rgb[], delayMs: number): Promise<Buffer> {
  const frameBytes = width * height * 3;
  const raw = Buffer.alloc(frameBytes * colours.length);
  colours.forEach((rgb, i) => {
    for (let p = i * frameBytes; p < (i + 1) * frameBytes; p += 3) raw.set(rgb, p);
  });
  return sharp(raw, { raw: { width, height: height * colours.length, channels: 3, pageHeight: height } })
    .webp({ quality: 90, loop: 0, delay: colours.map(() => delayMs) })
    .toBuffer();
}

/** The decoded MP4's frames, each as its centre pixel's colour. */
async function centreColours(mp4: Buffer): Promise<Rgb[]> {
  const decoded = await decodeVideo(mp4, ffmpegPath, { pixFmt: 'rgb24' });
  const centre = (Math.floor(decoded.height / 2) * decoded.width + Math.floor(decoded.width / 2)) * 3;
  return Array.from({ length: decoded.frames }, (_, i) => [...decoded.frame(i).subarray(centre, centre + 3)] as Rgb);
}

const near = (a: Rgb, b: Rgb) => a.every((v, i) => Math.abs(v - b[i]) <= 12);

test('webpToMp4: an animated WebP at 24 fps (41 ms a frame) becomes a fast-start H.264 MP4 with every frame, in order, at 24 fps', async () => {
  const colours = Array.from({ length: 16 }, (_, i) => colour(i));
  const webp = await animatedWebp(64, 48, colours, Math.trunc(1000 / 24));
  const mp4 = await webpToMp4(webp, { ffmpegPath, fps: 24 });
  assert.equal(mp4Codec(mp4), 'avc1', 'H.264');
  const boxes = mp4Boxes(mp4);
  assert.ok(boxes.indexOf('moov') < boxes.indexOf('mdat'), `moov before mdat: ${boxes}`);
  const info = probeVideo(mp4);
  assert.deepEqual([info.width, info.height, info.frames, info.fps], [64, 48, 16, 24]);
  assert.ok(Math.abs(info.durationS - 16 / 24) < 0.01, `${info.durationS} s`);
  const decoded = await centreColours(mp4);
  assert.equal(decoded.length, 16);
  for (const [i, rgb] of decoded.entries()) assert.ok(near(rgb, colours[i]), `frame ${i}: ${rgb}, made ${colours[i]}`);
});

test('webpToMp4: without the rate asked for, the frames keep the WebP’s own (1000/125 ms = 8 fps)', async () => {
  const webp = await animatedWebp(32, 32, [colour(0), colour(1), colour(2), colour(3)], 125);
  const info = probeVideo(await webpToMp4(webp, { ffmpegPath }));
  assert.deepEqual([info.frames, info.fps, info.durationS], [4, 8, 0.5]);
});

test('identical frames merged by the encoder count as frames: probeVideo and webpToMp4 keep the clip’s length and rate', async () => {
  // libwebp stores A, A, A, B, C as three frames: A for 3 × 125 ms, then B and C.
  const colours = [colour(0), colour(0), colour(0), colour(1), colour(2)];
  const webp = await animatedWebp(32, 32, colours, 125);
  assert.deepEqual((await sharp(webp).metadata()).delay, [375, 125, 125], 'the encoder merged the repeats');
  assert.deepEqual(probeVideo(webp), { format: 'webp', width: 32, height: 32, durationS: 0.625, frames: 5, fps: 8 });
  const mp4 = await webpToMp4(webp, { ffmpegPath, fps: 8 });
  assert.deepEqual([probeVideo(mp4).frames, probeVideo(mp4).fps], [5, 8]);
  const decoded = await centreColours(mp4);
  for (const [i, rgb] of decoded.entries()) assert.ok(near(rgb, colours[i]), `frame ${i}: ${rgb}, made ${colours[i]}`);
});

test('webpToMp4: an odd size loses its last column and row (4:2:0 needs even sides); frames decoded in runs are the same frames', async () => {
  const colours = Array.from({ length: 6 }, (_, i) => colour(i));
  const webp = await animatedWebp(33, 19, colours, 100);
  const whole = await webpToMp4(webp, { ffmpegPath, fps: 10 });
  assert.deepEqual([probeVideo(whole).width, probeVideo(whole).height, probeVideo(whole).frames], [32, 18, 6]);
  // A budget of one frame at a time: six decodes of one page each.
  const inRuns = await webpToMp4(webp, { ffmpegPath, fps: 10, budgetBytes: 33 * 19 * 4 });
  assert.deepEqual(await centreColours(inRuns), await centreColours(whole));
});

test('webpToMp4 rejects what is not an animated WebP it can encode', async () => {
  await assert.rejects(webpToMp4(Buffer.from('not an image at all'), { ffmpegPath }));
  const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .webp()
    .toBuffer();
  await assert.rejects(webpToMp4(tiny, { ffmpegPath }), /too small/);
});

test('webpTiming: the shortest delay is one frame; the rate asked for wins when SaveAnimatedWEBP’s int(1000/fps) matches it', () => {
  assert.deepEqual(webpTiming([41, 41, 82], 24), { rate: '24', repeats: [1, 1, 2] });
  assert.deepEqual(
    webpTiming([41, 41], 30),
    { rate: '1000/41', repeats: [1, 1] },
    '30 fps is 33 ms: the file says otherwise',
  );
  assert.deepEqual(webpTiming([125, 250]), { rate: '1000/125', repeats: [1, 2] });
  assert.deepEqual(webpTiming([0, 0], 12), { rate: '12', repeats: [1, 1] }, 'no delay: the rate asked for');
});

test('framesProblem: a still fails; a bound frame count may be off by 8 frames or 10 %, not more', () => {
  assert.match(framesProblem({ frames: 1 }) ?? '', /still image/);
  assert.match(framesProblem({ frames: 0 }) ?? '', /no frames/);
  assert.equal(framesProblem({ frames: 2 }), null, 'unbound: any clip of 2 frames or more');
  assert.equal(frameTolerance(48), 8);
  assert.equal(frameTolerance(120), 12);
  assert.equal(framesProblem({ frames: 41 }, 48), null, 'LTX-Video’s 8n + 1 below 48');
  assert.equal(framesProblem({ frames: 49 }, 48), null, 'Wan’s 4n + 1 above 48');
  assert.match(framesProblem({ frames: 8 }, 32) ?? '', /made 8 frames; 32 were asked for \(at most 8 off\)/);
  assert.match(framesProblem({ frames: 133 }, 120) ?? '', /133 frames; 120/);
  assert.equal(framesProblem({ frames: 132 }, 120), null);
});
