import sharp from 'sharp';
import { ProviderError } from '../../../domain/task-status.js';
import type { ImageRater } from '../../provider-types.js';
import { ThreadClient } from '../thread-client.js';

export interface NsfwPrediction {
  className: 'Drawing' | 'Hentai' | 'Neutral' | 'Porn' | 'Sexy';
  probability: number;
}

/**
 * How nsfwjs's five classes become the built-in scale: `nsfw` when Porn + Hentai ≥ 0.5, or
 * Sexy ≥ 0.8 (suggestive but not explicit images stay `sfw` unless the model is quite sure);
 * `sfw` otherwise (Neutral and Drawing).
 */
export function nsfwLevel(predictions: NsfwPrediction[]): 'sfw' | 'nsfw' {
  const p = (name: NsfwPrediction['className']) =>
    predictions.find((entry) => entry.className === name)?.probability ?? 0;
  return p('Porn') + p('Hentai') >= 0.5 || p('Sexy') >= 0.8 ? 'nsfw' : 'sfw';
}

const INPUT = 224;

/**
 * The embedded nsfw_sfw rater: nsfwjs MobileNetV2 (bundled in the package) on tfjs with the
 * wasm backend, in a worker thread, loaded once on first use. The image is decoded and scaled
 * to 224×224 RGB here (sharp works off the event loop) and only pixels cross to the thread.
 */
export function createEmbeddedNsfwRater(options: { timeoutMs?: number } = {}): ImageRater & {
  predict(data: Buffer): Promise<{ predictions: NsfwPrediction[]; backend: string }>;
  warmUp(): Promise<void>;
  close(): Promise<void>;
} {
  const thread = new ThreadClient<
    { pixels: Uint8Array; width: number; height: number },
    { predictions: NsfwPrediction[]; backend: string }
  >(new URL('./nsfw-worker.mjs', import.meta.url), 'the nsfw model');
  const predict = async (data: Buffer) => {
    const pixels = await sharp(data).removeAlpha().resize(INPUT, INPUT, { fit: 'fill' }).raw().toBuffer();
    const array = new Uint8Array(pixels);
    // Without a preload, the first call also loads the model (about a second); later ones take about 75 ms.
    return thread.call({ pixels: array, width: INPUT, height: INPUT }, options.timeoutMs ?? 60_000, [
      array.buffer as ArrayBuffer,
    ]);
  };
  return {
    predict,
    async rate(image, request) {
      if (request.mode !== 'nsfw_sfw')
        throw new ProviderError('RATING_FAILED', 'the embedded rater serves only the nsfw_sfw scale', {
          retryable: false,
        });
      const { predictions } = await predict(image.data);
      if (!predictions?.length)
        throw new ProviderError('RATING_FAILED', 'the model gave no prediction', { retryable: false });
      return nsfwLevel(predictions);
    },
    /** Loads the model in its thread now (a preload at start), so the first rating does not wait for it. */
    warmUp: () => thread.warmUp(options.timeoutMs ?? 60_000),
    close: () => thread.close(),
  };
}
