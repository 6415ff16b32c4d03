import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import sharp from 'sharp';
import { bridgeEvents } from '../../../../src/engine/intake/fleet-signals.js';
import {
  fitForNotification,
  MAX_NOTIFIED_PREVIEW_BYTES,
  PREVIEW_CHANNEL,
} from '../../../../src/engine/intake/preview-signals.js';
import { EventBus, type TaskPreview } from '../../../../src/services/event-bus.js';
import { PgStore } from '../../../../src/store/postgres/postgres-store.js';
import { migratedSchema } from '../../store/store-backends.js';

/** A JPEG of random pixels: far larger than a notification holds. */
async function noisyJpeg(side: number): Promise<Buffer> {
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + ((i * i) % 251)) % 256;
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}

test('a preview too large for a notification is made into a smaller JPEG that fits; a small one goes as it is', async () => {
  const large = await noisyJpeg(512);
  assert.ok(large.length > MAX_NOTIFIED_PREVIEW_BYTES);
  const fitted = await fitForNotification({ data: large, mimeType: 'image/jpeg' });
  assert.ok(fitted && fitted.data.length <= MAX_NOTIFIED_PREVIEW_BYTES, `${fitted?.data.length} bytes`);
  assert.equal((await sharp(fitted.data).metadata()).format, 'jpeg');
  const small = { data: await noisyJpeg(8), mimeType: 'image/jpeg' as const };
  assert.equal(await fitForNotification(small), small);
  assert.equal(
    await fitForNotification({ data: Buffer.alloc(MAX_NOTIFIED_PREVIEW_BYTES + 1, 1), mimeType: 'image/png' }),
    undefined,
    'not an image: not sent',
  );
});

test("a running item's preview in one process reaches the live streams of another (PostgreSQL NOTIFY, under 8000 bytes), not its own", async (t: TestContext) => {
  const closers: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
  });
  const url = await migratedSchema(t, closers);
  const [a, b] = await Promise.all(
    [0, 1].map((i) => PgStore.open({ url, poolSize: 2, applicationName: `previews-${i}` })),
  );
  closers.push(
    () => a.close(),
    () => b.close(),
  );
  const here = new EventBus();
  const there = new EventBus();
  const stops = [
    await bridgeEvents(a.shared.signals, here, () => undefined),
    await bridgeEvents(b.shared.signals, there, () => undefined),
  ];
  t.after(() => {
    for (const stop of stops) stop();
  });
  const payloads: string[] = [];
  await b.shared.signals.listen(PREVIEW_CHANNEL, (payload) => payloads.push(payload));
  const arrived: TaskPreview[] = [];
  const echoed: TaskPreview[] = [];
  there.on('task:preview-elsewhere', (preview) => void arrived.push(preview));
  here.on('task:preview-elsewhere', (preview) => void echoed.push(preview));
  here.emit('task:preview', { taskId: 'tsk_1', index: 2, mimeType: 'image/jpeg', data: await noisyJpeg(512) });
  for (let i = 0; i < 200 && arrived.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(arrived.length, 1);
  assert.equal(arrived[0].taskId, 'tsk_1');
  assert.equal(arrived[0].index, 2);
  assert.equal((await sharp(arrived[0].data).metadata()).format, 'jpeg');
  assert.ok(payloads.every((payload) => Buffer.byteLength(payload) < 8000));
  assert.equal(echoed.length, 0, 'a process does not relay its own previews to itself');
});
