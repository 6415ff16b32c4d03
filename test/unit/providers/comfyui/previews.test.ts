import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { decodePreviewFrame } from '../../../../src/providers/remote/comfyui/previews.js';

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
  const decoded = decodePreviewFrame(metadataFrame({ node_id: '3', prompt_id: 'p-1', display_node_id: '3', image_type: 'image/jpeg' }, jpeg));
  assert.equal(decoded?.promptId, 'p-1');
  assert.equal(decoded.preview.mimeType, 'image/jpeg');
  assert.ok(decoded.preview.data.equals(jpeg));
  // The bytes decide the type, whatever the metadata says.
  assert.equal(decodePreviewFrame(metadataFrame({ prompt_id: 'p-1', image_type: 'image/jpeg' }, png))?.preview.mimeType, 'image/png');
});

test('a truncated or malformed frame is ignored', () => {
  const whole = metadataFrame({ prompt_id: 'p-1', image_type: 'image/jpeg' }, jpeg);
  for (const cut of [0, 3, 7, 12, whole.length - jpeg.length, whole.length - 1]) assert.equal(decodePreviewFrame(whole.subarray(0, cut)), undefined, `cut at ${cut}`);
  assert.equal(decodePreviewFrame(legacyFrame(1, jpeg.subarray(0, jpeg.length - 10))), undefined);
  assert.equal(decodePreviewFrame(legacyFrame(2, png.subarray(0, png.length - 4))), undefined);
  // A metadata length past the frame's end, metadata that is not JSON, another event type (3: text).
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(4), uint32(1_000_000), jpeg])), undefined);
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(4), uint32(3), Buffer.from('{x:'), jpeg])), undefined);
  assert.equal(decodePreviewFrame(Buffer.concat([uint32(3), uint32(0), jpeg])), undefined);
});
