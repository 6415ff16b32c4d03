import type WebSocket from 'ws';
import type { LivePreview } from '../../../domain/media-types.js';

/** server.py's BinaryEventTypes that carry a preview image. */
const PREVIEW_IMAGE = 1;
const PREVIEW_IMAGE_WITH_METADATA = 4;

/**
 * The first message a client sends on its socket to say what it takes (comfy_api.feature_flags):
 * with `supports_preview_metadata` the server tags each preview with its prompt id
 * (PREVIEW_IMAGE_WITH_METADATA) and stops sending the untagged kind. Servers older than the
 * handshake ignore it and send untagged previews.
 */
export const PREVIEW_FEATURE_FLAGS = JSON.stringify({
  type: 'feature_flags',
  data: { supports_preview_metadata: true },
});

export interface DecodedPreview {
  preview: LivePreview;
  /** The prompt it belongs to, for frames with metadata. */
  promptId?: string;
}

/**
 * One binary socket frame as a preview, or undefined when it is none (another event type) or
 * is cut short or malformed: a 4-byte big-endian event type, then for PREVIEW_IMAGE a 4-byte
 * image type (1 JPEG, 2 PNG) and the image, for PREVIEW_IMAGE_WITH_METADATA a 4-byte length,
 * that many bytes of JSON ({ prompt_id, node_id, image_type, … }) and the image. The image's
 * own bytes decide its type, and an image whose end is missing is no preview.
 */
export function decodePreviewFrame(frame: Buffer): DecodedPreview | undefined {
  if (frame.length < 8) return undefined;
  const event = frame.readUInt32BE(0);
  if (event === PREVIEW_IMAGE) {
    const preview = imageOf(frame.subarray(8));
    return preview && { preview };
  }
  if (event !== PREVIEW_IMAGE_WITH_METADATA) return undefined;
  const length = frame.readUInt32BE(4);
  if (frame.length < 8 + length) return undefined;
  let metadata: unknown;
  try {
    metadata = JSON.parse(frame.subarray(8, 8 + length).toString('utf8'));
  } catch {
    return undefined;
  }
  const preview = imageOf(frame.subarray(8 + length));
  if (!preview) return undefined;
  const promptId = (metadata as { prompt_id?: unknown } | null)?.prompt_id;
  return typeof promptId === 'string' ? { preview, promptId } : { preview };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_END = Buffer.from('IEND');

/** A whole JPEG (SOI … EOI) or PNG (signature … IEND chunk); undefined for anything else. */
function imageOf(data: Buffer): LivePreview | undefined {
  const n = data.length;
  if (n >= 4 && data[0] === 0xff && data[1] === 0xd8 && data[n - 2] === 0xff && data[n - 1] === 0xd9)
    return { data, mimeType: 'image/jpeg' };
  if (n >= 20 && data.subarray(0, 8).equals(PNG_SIGNATURE) && data.subarray(n - 8, n - 4).equals(PNG_END))
    return { data, mimeType: 'image/png' };
  return undefined;
}

/**
 * Relays the previews of one job's socket to `onPreview`, after asking for tagged ones: a frame
 * tagged with a prompt id only when it is this job's, an untagged one once this job is queued
 * (the socket's client id is this job's alone, and ComfyUI sends a preview to the client of the
 * prompt it runs). Frames before the prompt id is known are dropped: the next step sends another.
 */
export function relayPreviews(
  socket: WebSocket,
  promptIdOf: () => string | undefined,
  onPreview: (preview: LivePreview) => void,
): void {
  try {
    socket.send(PREVIEW_FEATURE_FLAGS);
  } catch {
    // A socket closing already: the job falls back to polling, with no previews.
  }
  socket.on('message', (raw, isBinary) => {
    if (!isBinary || !Buffer.isBuffer(raw)) return;
    const id = promptIdOf();
    if (id === undefined) return;
    const decoded = decodePreviewFrame(raw);
    if (!decoded || (decoded.promptId !== undefined && decoded.promptId !== id)) return;
    onPreview(decoded.preview);
  });
}
