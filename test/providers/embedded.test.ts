import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { colourName } from '../../src/providers/embedded/alt/colour-names.js';
import { createBasicAltWriter, describeTraits } from '../../src/providers/embedded/alt/describer.js';
import { createEmbeddedNsfwRater, nsfwLevel } from '../../src/providers/embedded/nsfw/rater.js';
import { startService, waitForTask } from '../helpers/harness.js';

const signal = new AbortController().signal;

/** A photo-like image: gradients, shapes and noise (many distinct colours). */
async function photoLike(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1e5799"/><stop offset="1" stop-color="#7db9e8"/></linearGradient><radialGradient id="r"><stop offset="0" stop-color="#ffe08a"/><stop offset="1" stop-color="#c0392b"/></radialGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><ellipse cx="${width / 2}" cy="${height / 2}" rx="${width / 4}" ry="${height / 5}" fill="url(#r)"/></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
  let seed = 7;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    data[i] = Math.max(0, Math.min(255, data[i] + ((seed >> 16) % 31) - 15));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png()
    .toBuffer();
}

test('nsfwjs classes map to the built-in scale by the documented thresholds', () => {
  const p = (porn: number, hentai: number, sexy: number) => [
    { className: 'Porn' as const, probability: porn },
    { className: 'Hentai' as const, probability: hentai },
    { className: 'Sexy' as const, probability: sexy },
    { className: 'Neutral' as const, probability: Math.max(0, 1 - porn - hentai - sexy) },
  ];
  assert.equal(nsfwLevel(p(0.3, 0.2, 0)), 'nsfw');
  assert.equal(nsfwLevel(p(0.3, 0.19, 0)), 'sfw');
  assert.equal(nsfwLevel(p(0, 0, 0.8)), 'nsfw');
  assert.equal(nsfwLevel(p(0, 0, 0.79)), 'sfw');
  assert.equal(nsfwLevel([]), 'sfw');
});

test('the embedded nsfw model runs on the wasm backend in a worker thread, and the event loop stays free', async () => {
  const rater = createEmbeddedNsfwRater();
  try {
    const image = await photoLike(400, 300);
    // How busy the event loop was (not how late a timer fired: on a loaded machine the OS makes
    // timers late whoever runs the model). A model on this thread would keep it busy throughout.
    const before = performance.eventLoopUtilization();
    const first = await rater.predict(image); // includes loading the model
    const busy = performance.eventLoopUtilization(before).utilization;
    assert.equal(first.backend, 'wasm');
    assert.deepEqual(first.predictions.map((p) => p.className).sort(), [
      'Drawing',
      'Hentai',
      'Neutral',
      'Porn',
      'Sexy',
    ]);
    const total = first.predictions.reduce((sum, p) => sum + p.probability, 0);
    assert.ok(Math.abs(total - 1) < 0.01, `probabilities sum to ${total}`);
    assert.ok(
      busy < 0.5,
      `the event loop was busy ${(busy * 100).toFixed(0)} % of the time while the model loaded and ran`,
    );
    assert.equal(
      await rater.rate(
        { data: image, format: 'png', width: 400, height: 300 },
        { mode: 'nsfw_sfw', levels: [] },
        signal,
      ),
      'sfw',
    );
  } finally {
    await rater.close();
  }
});

test('basic alt text tells photo from drawing, orientation, colours, and reads text', async () => {
  const writer = createBasicAltWriter();
  try {
    const photo = await photoLike(600, 400);
    const photoTraits = await writer.traits({ data: photo, format: 'png', width: 600, height: 400 });
    assert.equal(photoTraits.kind, 'photo');
    assert.equal(photoTraits.orientation, 'landscape');
    assert.ok(photoTraits.colours.includes('blue'), photoTraits.colours.join());
    const drawing = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="300"><rect width="100%" height="100%" fill="#2e7d32"/><circle cx="100" cy="150" r="60" fill="#fdd835"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    const alt = await writer.describe({ data: drawing, format: 'png', width: 200, height: 300 }, signal);
    assert.equal(alt, 'A portrait drawing or graphic, mostly green and yellow.');
    const sign = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="512" height="256"><rect width="100%" height="100%" fill="white"/><text x="20" y="140" font-family="DejaVu Sans" font-size="40" fill="black">OPEN DAILY 9 TO 5</text></svg>',
      ),
    )
      .png()
      .toBuffer();
    assert.equal(
      await writer.describe({ data: sign, format: 'png', width: 512, height: 256 }, signal),
      'A landscape drawing or graphic, mostly white, with the text "OPEN DAILY 9 TO 5".',
    );
  } finally {
    await writer.close();
  }
  assert.ok(describeTraits({ kind: 'photo', orientation: 'square', colours: [], text: 'x'.repeat(80) }).length <= 160);
  assert.deepEqual(
    ['red', 'white', 'black', 'grey', 'navy', 'yellow'],
    [
      colourName(220, 20, 20),
      colourName(250, 250, 250),
      colourName(5, 5, 5),
      colourName(128, 128, 128),
      colourName(10, 20, 90),
      colourName(240, 220, 30),
    ],
  );
});

test('over HTTP with the embedded models: rate, alt and remove-background on an uploaded image', async (t) => {
  const h = await startService(t, { providers: {} });
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await photoLike(320, 240))]), 'scene.png');
  const [file] = (
    (await (
      await fetch(`${h.url}/image/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}` },
        body: form,
      })
    ).json()) as { data: { files: { id: string }[] } }
  ).data.files;
  const rated = await h.request('POST', '/image/rate', { auth: h.apiKey, body: { mode: 'nsfw_sfw', urls: [file.id] } });
  assert.deepEqual(rated.json.data.results[0], { status: 'success', url: file.id, level: 'sfw' });
  const alt = await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [file.id] } });
  assert.match(alt.json.data.results[0].alt, /^A landscape photo, mostly /);
  const cut = await waitForTask(
    h,
    (
      await h.request('POST', '/image/remove-background', {
        auth: h.apiKey,
        body: { url: `${h.url}/images/${file.id}.png`, output: { format: 'webp' } },
      })
    ).json.data.taskId,
    60_000,
  );
  assert.equal(cut.status, 'completed', JSON.stringify(cut.errors));
  assert.equal(cut.result.image.size, '320x240');
  const bytes = Buffer.from(await (await fetch(cut.result.image.service_url)).arrayBuffer());
  assert.equal((await sharp(bytes).metadata()).hasAlpha, true);
});

const canIsolate = (() => {
  try {
    execFileSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('the embedded models need no network: all three run inside a namespace with only loopback', {
  skip: canIsolate ? false : 'unshare -n is not permitted here',
}, () => {
  const script = join(import.meta.dirname, '../fixtures/embedded-check.ts');
  const result = spawnSync(
    'unshare',
    ['-n', 'sh', '-c', `ip link set lo up; exec "${process.execPath}" --import tsx "${script}"`],
    { encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
  assert.equal(report.backend, 'wasm');
  assert.equal(report.classes, 5);
  assert.equal(report.level, 'sfw');
  assert.equal(
    report.description,
    'A landscape drawing or graphic, mostly white, with the text "Hello World 2026 OCR".',
  );
  assert.deepEqual([report.cut.width, report.cut.height, report.cut.channels], [320, 240, 4]);
  assert.equal(report.cut.cornerAlpha, 0, 'the background is gone');
  assert.ok(report.cut.centreAlpha > 200, 'the subject stays');
});
