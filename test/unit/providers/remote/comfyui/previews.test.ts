import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import sharp from 'sharp';
import type WebSocket from 'ws';
import { decodePreviewFrame, relayPreviews } from '../../../../../src/providers/remote/comfyui/previews.js';

/** Frames as server.py's send_bytes writes them: a ">I" event type, then the payload. */
const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
const legacyFrame = (imageType: number, image: Buffer) => Buffer.concat([uint32(1), uint32(imageType), image]);
const metadataFrame = (metadata: object, image: Buffer) => {
  const json = Buffer.from(JSON.stringify(metadata));
  return Buffer.concat([uint32(4), uint32(json.length), json, image]);
};

const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .jpeg()
  .toBuffer();
const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .png()
  .toBuffer();

test('a PREVIEW_IMAGE frame (type 1 JPEG, type 2 PNG) is its image, untagged', () => {
  const decoded = decodePreviewFrame(legacyFrame(1, jpeg));
  assert.equal(decoded?.preview.mimeType, 'image/jpeg');
  assert.ok(decoded.preview.data.equals(jpeg));
  assert.equal(decoded.promptId, undefined);
  const fromPng = decodePreviewFrame(legacyFrame(2, png));
  assert.equal(fromPng?.preview.mimeType, 'image/png');
  assert.ok(fromPng.preview.data.equals(png));
});

test("a PREVIEW_IMAGE_WITH_METADATA frame is its image with the metadata's prompt id", () => {
  const decoded = decodePreviewFrame(
    metadataFrame({ node_id: '3', prompt_id: 'p-1', display_node_id: '3', image_type: 'image/jpeg' }, jpeg),
  );
  assert.equal(decoded?.promptId, 'p-1');
  assert.equal(decoded.preview.mimeType, 'image/jpeg');
  assert.ok(decoded.preview.data.equals(jpeg));
  // The bytes decide the type, whatever the metadata says.
  assert.equal(
    decodePreviewFrame(metadataFrame({ prompt_id: 'p-1', image_type: 'image/jpeg' }, png))?.preview.mimeType,
    'image/png',
  );
});

test('a truncated or malformed frame is ignored', () => {
  const whole = metadataFrame({ prompt_id: 'p-1', image_type: 'image/jpeg' }, jpeg);
  for (const cut of [0, 3, 7, 12, whole.length - jpeg.length, whole.length - 1])
    assert.equal(decodePreviewFrame(whole.subarray(0, cut)), undefined, `cut at ${cut}`);
  assert.equal(decodePreviewFrame(legacyFrame(1, jpeg.subarray(0, jpeg.length - 10))), undefined);
  assert.equal(decodePreviewFrame(legacyFrame(2, png.subarray(0, png.length - 4))), undefined);
  // A metadata length past the frame's end, metadata that is not JSON, another event type (3: text).
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(4), uint32(1_000_000), jpeg])), undefined);
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(4), uint32(3), Buffer.from('{x:'), jpeg])), undefined);
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(3), uint32(0), jpeg])), undefined);
});

test("a job's socket relays only its own previews: tagged with its prompt id, or untagged once it is queued; the handshake asks for tagged ones", () => {
  const socket = Object.assign(new EventEmitter(), {
    sent: [] as string[],
    send(text: string) {
      this.sent.push(text);
    },
  });
  let promptId: string | undefined;
  const relayed: Buffer[] = [];
  relayPreviews(
    socket as unknown as WebSocket,
    () => promptId,
    (preview) => relayed.push(preview.data),
  );
  assert.deepEqual(
    socket.sent.map((text) => JSON.parse(text)),
    [{ type: 'feature_flags', data: { supports_preview_metadata: true } }],
  );
  // Before the prompt id is known: nothing can be matched yet.
  socket.emit('message', metadataFrame({ prompt_id: 'mine' }, jpeg), true);
  assert.equal(relayed.length, 0);
  promptId = 'mine';
  socket.emit('message', metadataFrame({ prompt_id: 'another' }, jpeg), true);
  socket.emit('message', Buffer.from(JSON.stringify({ type: 'progress', data: { prompt_id: 'mine' } })), false);
  socket.emit('message', legacyFrame(1, jpeg.subarray(0, 20)), true);
  assert.equal(relayed.length, 0, "another prompt's preview, a text message and a cut frame are not relayed");
  socket.emit('message', metadataFrame({ prompt_id: 'mine' }, jpeg), true);
  socket.emit('message', legacyFrame(2, png), true);
  assert.equal(relayed.length, 2);
  assert.ok(relayed[0].equals(jpeg) && relayed[1].equals(png));
});
