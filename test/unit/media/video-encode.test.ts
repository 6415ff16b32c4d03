import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { encodeFrames, mp4ToWebp } from '../../../src/media/video-encode.js';
import { mp4Codec, probeVideo, VideoReadError } from '../../../src/media/video-probe.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { decodeVideo, mp4Boxes, webpAnimation } from '../../helpers/video-check.js';

const ffmpegPath = bundledFfmpegPath();
const run = promisify(execFile);

/** `count` frames of width × height RGB: frame i is a flat grey of level 20 + 8i with a moving white square. */
function* greyRamp(width: number, height: number, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) {
    const frame = Buffer.alloc(width * height * 3, 20 + ((8 * i) % 200));
    const side = Math.max(2, Math.floor(height / 4));
    for (let y = 0; y < side; y++)
      frame.fill(255, (y * width + (i % (width - side))) * 3, (y * width + (i % (width - side)) + side) * 3);
    yield frame;
  }
}

test('the bundled ffmpeg is an existing file, resolved on call', () => {
  assert.ok(existsSync(ffmpegPath), ffmpegPath);
});

test('encodeFrames mp4: a fast-start H.264 file whose every frame a real decoder reads back', async () => {
  const [width, height, fps, seconds] = [64, 48, 12, 2];
  const data = await encodeFrames(greyRamp(width, height, fps * seconds), {
    width,
    height,
    fps,
    format: 'mp4',
    ffmpegPath,
  });
  const boxes = mp4Boxes(data);
  assert.equal(boxes[0], 'ftyp');
  assert.ok(boxes.includes('moov') && boxes.indexOf('moov') < boxes.indexOf('mdat'), `moov before mdat: ${boxes}`);
  assert.equal(mp4Codec(data), 'avc1', 'the stsd entry is H.264');
  assert.deepEqual(probeVideo(data), { format: 'mp4', width, height, durationS: seconds, frames: fps * seconds, fps });
  const decoded = await decodeVideo(data);
  assert.deepEqual([decoded.width, decoded.height, decoded.frames], [width, height, fps * seconds]);
  // Frame order and content survive: the flat grey level of frame i (the square aside) is 20 + 8i.
  for (const i of [0, 5, 23]) {
    const level = decoded.frame(i)[(height - 1) * width]; // bottom-left pixel, away from the square
    assert.ok(Math.abs(level - (20 + 8 * i)) <= 4, `frame ${i}: grey ${level}, wanted about ${20 + 8 * i}`);
  }
});

test('encodeFrames mp4 at 640x360, 24 fps, 2 s: 48 frames of the right size', async () => {
  const [width, height, fps] = [640, 360, 24];
  async function* frames() {
    yield* greyRamp(width, height, 48);
  }
  const data = await encodeFrames(frames(), { width, height, fps, format: 'mp4', ffmpegPath });
  const info = probeVideo(data);
  assert.deepEqual([info.width, info.height, info.frames, info.fps, info.durationS], [640, 360, 48, 24, 2]);
  const decoded = await decodeVideo(data);
  assert.deepEqual([decoded.width, decoded.height, decoded.frames], [640, 360, 48]);
});

test('encodeFrames refuses an odd MP4 size and a frame of the wrong length, and leaves no temp folder', async (t) => {
  const dir = await tempDir(t);
  await assert.rejects(
    encodeFrames(greyRamp(63, 48, 2), { width: 63, height: 48, fps: 12, format: 'mp4', ffmpegPath, tempDir: dir }),
    /even frame size/,
  );
  await assert.rejects(
    encodeFrames([Buffer.alloc(10)], { width: 64, height: 48, fps: 12, format: 'mp4', ffmpegPath, tempDir: dir }),
    /a frame has 10 bytes, not 9216/,
  );
  await assert.rejects(
    encodeFrames([Buffer.alloc(10)], { width: 64, height: 48, fps: 12, format: 'webp', ffmpegPath, tempDir: dir }),
    /a frame has 10 bytes/,
  );
  assert.deepEqual(await readdir(dir), []);
});

test('encodeFrames webp through sharp: one page per frame, each round(1000/fps) ms, looping; probeVideo agrees', async () => {
  const [width, height, fps, count] = [64, 48, 12, 24];
  const data = await encodeFrames(greyRamp(width, height, count), { width, height, fps, format: 'webp', ffmpegPath });
  const animation = await webpAnimation(data);
  assert.deepEqual([animation.pages, animation.loop, animation.width, animation.pageHeight], [count, 0, width, height]);
  assert.deepEqual(animation.delay, Array(count).fill(83));
  const info = probeVideo(data);
  assert.deepEqual([info.format, info.width, info.height, info.frames], ['webp', width, height, count]);
  assert.equal(info.durationS, (83 * count) / 1000);
});

test('encodeFrames webp past the memory budget streams into ffmpeg’s libwebp_anim: the same kind of file', async (t) => {
  const [width, height, fps, count] = [64, 48, 8, 16];
  const dir = await tempDir(t);
  let pulled = 0;
  function* counted() {
    for (const frame of greyRamp(width, height, count)) {
      pulled++;
      yield frame;
    }
  }
  // A budget of three frames: sharp would need sixteen.
  const data = await encodeFrames(counted(), {
    width,
    height,
    fps,
    format: 'webp',
    ffmpegPath,
    tempDir: dir,
    webpBudgetBytes: 3 * width * height * 3,
  });
  assert.equal(pulled, count);
  const animation = await webpAnimation(data);
  assert.deepEqual([animation.pages, animation.loop, animation.width, animation.pageHeight], [count, 0, width, height]);
  assert.ok(
    animation.delay.every((d) => Math.abs(d - 125) <= 1),
    `each frame about 125 ms: ${animation.delay}`,
  );
  const info = probeVideo(data);
  assert.deepEqual([info.format, info.frames], ['webp', count]);
  assert.ok(Math.abs(info.durationS - 2) < 0.01, `${info.durationS}`);
  assert.deepEqual(await readdir(dir), [], 'the temp folder is gone');
});

test('mp4ToWebp: an MP4 becomes a looping animated WebP with every frame, at the same rate', async () => {
  const [width, height, fps, count] = [64, 48, 12, 24];
  const mp4 = await encodeFrames(greyRamp(width, height, count), { width, height, fps, format: 'mp4', ffmpegPath });
  const webp = await mp4ToWebp(mp4, { ffmpegPath });
  const animation = await webpAnimation(webp);
  assert.deepEqual([animation.pages, animation.loop, animation.width, animation.pageHeight], [count, 0, width, height]);
  const info = probeVideo(webp);
  assert.equal(info.frames, count);
  assert.ok(Math.abs(info.fps - fps) < 0.1, `fps ${info.fps}`);
});

test('an abort kills ffmpeg: encodeFrames rejects with the reason at once, stops pulling frames, leaves no temp file', async (t) => {
  const dir = await tempDir(t);
  const controller = new AbortController();
  let pulled = 0;
  let closed = false;
  async function* endless() {
    try {
      const frame = Buffer.alloc(640 * 360 * 3, 99);
      for (;;) {
        pulled++;
        if (pulled === 20) setTimeout(() => controller.abort(new Error('stop now')), 0);
        yield Buffer.from(frame);
      }
    } finally {
      closed = true;
    }
  }
  const started = performance.now();
  await assert.rejects(
    encodeFrames(endless(), {
      width: 640,
      height: 360,
      fps: 24,
      format: 'mp4',
      ffmpegPath,
      signal: controller.signal,
      tempDir: dir,
    }),
    /stop now/,
  );
  const ms = performance.now() - started;
  assert.ok(ms < 3000, `rejected after ${Math.round(ms)} ms`);
  assert.ok(closed, 'the frame source was closed');
  const after = pulled;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(pulled, after, 'no frame is pulled after the rejection');
  assert.deepEqual(await readdir(dir), []);
  // An already-aborted signal does not start ffmpeg at all.
  await assert.rejects(
    mp4ToWebp(Buffer.alloc(100), { ffmpegPath, signal: AbortSignal.abort(new Error('too late')), tempDir: dir }),
    /too late/,
  );
});

test('a process that exits mid-encode still removes its temporary folder', async (t) => {
  const dir = await tempDir(t);
  const media = (file: string) => pathToFileURL(join(import.meta.dirname, '../../../src/media', file)).href;
  const script = `
    import { bundledFfmpegPath } from ${JSON.stringify(media('ffmpeg.ts'))};
    import { encodeFrames } from ${JSON.stringify(media('video-encode.ts'))};
    async function* endless() { for (;;) yield Buffer.alloc(64 * 48 * 3, 50); }
    void encodeFrames(endless(), { width: 64, height: 48, fps: 12, format: 'mp4', ffmpegPath: bundledFfmpegPath(), tempDir: ${JSON.stringify(dir)} });
    setTimeout(async () => {
      const { readdirSync } = await import('node:fs');
      process.stdout.write(String(readdirSync(${JSON.stringify(dir)}).length));
      process.exit(0);
    }, 300);`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  assert.equal(stdout, '1', 'the encode was under way in its folder');
  assert.deepEqual(await readdir(dir), []);
});

test('a missing ffmpeg binary or a failing ffmpeg rejects with a clear error', async (t) => {
  const dir = await tempDir(t);
  await assert.rejects(
    encodeFrames(greyRamp(64, 48, 4), {
      width: 64,
      height: 48,
      fps: 12,
      format: 'mp4',
      ffmpegPath: '/nonexistent/ffmpeg',
      tempDir: dir,
    }),
    /ffmpeg could not be started \(\/nonexistent\/ffmpeg\): .*ENOENT/,
  );
  await assert.rejects(
    mp4ToWebp(Buffer.from('not a video at all'), { ffmpegPath, tempDir: dir }),
    /ffmpeg failed \(exit 1\): .*Invalid data/,
  );
  assert.deepEqual(await readdir(dir), []);
});

// --- probeVideo ------------------------------------------------------------------------------

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const box = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
};

/** A minimal MP4 header with version-1 (64-bit) mvhd, tkhd and mdhd boxes and a 64-bit-size mdat. */
function versionOneMp4(): Buffer {
  const v1 = Buffer.from([1, 0, 0, 0]);
  const mvhd = box('mvhd', v1, u64(0), u64(0), u32(1000), u64(3000), Buffer.alloc(80));
  const tkhd = box(
    'tkhd',
    v1,
    u64(0),
    u64(0),
    u32(1),
    u32(0),
    u64(3000),
    Buffer.alloc(8 + 8 + 36),
    u32(320 * 65536),
    u32(240 * 65536),
  );
  const mdhd = box('mdhd', v1, u64(0), u64(0), u32(15360), u64(46080), Buffer.alloc(4));
  const hdlr = box('hdlr', Buffer.alloc(4), Buffer.alloc(4), Buffer.from('vide'), Buffer.alloc(13));
  const sound = box(
    'trak',
    box('mdia', box('hdlr', Buffer.alloc(4), Buffer.alloc(4), Buffer.from('soun'), Buffer.alloc(13))),
  );
  const stsd = box('stsd', Buffer.alloc(4), u32(1), box('avc1', Buffer.alloc(78)));
  const stsz = box('stsz', Buffer.alloc(4), u32(0), u32(75), Buffer.alloc(75 * 4));
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', box('stbl', stsd, stsz))));
  const payload = Buffer.alloc(100, 7);
  const mdat = Buffer.concat([u32(1), Buffer.from('mdat'), u64(16 + payload.length), payload]);
  return Buffer.concat([box('ftyp', Buffer.from('isom'), u32(512)), box('moov', mvhd, sound, trak), mdat]);
}

test('probeVideo reads version-1 boxes, 64-bit box sizes, a size-0 last box, and skips non-video tracks', async () => {
  const data = versionOneMp4();
  assert.deepEqual(probeVideo(data), { format: 'mp4', width: 320, height: 240, durationS: 3, frames: 75, fps: 25 });
  assert.equal(mp4Codec(data), 'avc1');
  assert.deepEqual(mp4Boxes(data), ['ftyp', 'moov', 'mdat']);
  // The last box with size 0 runs to the end of the file.
  const open = Buffer.from(data);
  const mdatAt = data.length - 116;
  assert.equal(open.toString('latin1', mdatAt + 4, mdatAt + 8), 'mdat');
  open.writeUInt32BE(0, mdatAt);
  assert.equal(probeVideo(open).frames, 75);
  assert.deepEqual(mp4Boxes(open), ['ftyp', 'moov', 'mdat']);
});

test('probeVideo on garbage, truncated or garbled input throws VideoReadError and nothing else', async () => {
  const mp4 = await encodeFrames(greyRamp(64, 48, 6), { width: 64, height: 48, fps: 12, format: 'mp4', ffmpegPath });
  const webp = await encodeFrames(greyRamp(64, 48, 6), { width: 64, height: 48, fps: 12, format: 'webp', ffmpegPath });
  for (const bad of [
    Buffer.alloc(0),
    Buffer.from('hello'),
    Buffer.alloc(64),
    Buffer.from('RIFF\0\0\0\0WEBP'),
    Buffer.from('\0\0\0\x08ftyp'),
    Buffer.from('\0\0\0\x04ftypisom'),
  ]) {
    assert.throws(() => probeVideo(bad), VideoReadError, JSON.stringify(bad.toString('latin1')));
  }
  // Every prefix of both files (the whole of each header, then strides through the payload).
  for (const data of [mp4, webp, versionOneMp4()]) {
    for (let length = 0; length < data.length; length += length < 1200 ? 1 : 97) {
      assert.throws(() => probeVideo(data.subarray(0, length)), VideoReadError, `prefix of ${length} bytes`);
    }
  }
  // Garbled headers: random bytes overwritten near the front. Either a reading or a VideoReadError.
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let readings = 0;
  for (const data of [mp4, webp, versionOneMp4()]) {
    for (let round = 0; round < 600; round++) {
      const garbled = Buffer.from(data);
      for (let k = 0, n = 1 + random(4); k < n; k++) garbled[random(Math.min(garbled.length, 900))] = random(256);
      try {
        const info = probeVideo(garbled);
        assert.ok(
          Number.isFinite(info.width) && Number.isFinite(info.durationS) && Number.isFinite(info.fps),
          JSON.stringify(info),
        );
        readings++;
      } catch (err) {
        assert.ok(err instanceof VideoReadError, `round ${round}: ${(err as Error).stack}`);
      }
    }
  }
  assert.ok(readings > 0, 'some garbled files still read (the flips miss the header fields)');
});

test('probeVideo reads a still WebP as one frame, and the size of a lossless one', async () => {
  const sharp = (await import('sharp')).default;
  const lossy = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#336699' } })
    .webp()
    .toBuffer();
  const lossless = await sharp({ create: { width: 31, height: 17, channels: 3, background: '#336699' } })
    .webp({ lossless: true })
    .toBuffer();
  assert.deepEqual(probeVideo(lossy), { format: 'webp', width: 30, height: 20, durationS: 0, frames: 1, fps: 0 });
  assert.deepEqual(probeVideo(lossless), { format: 'webp', width: 31, height: 17, durationS: 0, frames: 1, fps: 0 });
});
