import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Tesseract from 'tesseract.js';

const require = createRequire(import.meta.url);

/**
 * Offline OCR with tesseract.js and the English LSTM model shipped in @tesseract.js-data/eng
 * (2.9 MB). `langPath` must point at the package: without it the library fetches from a CDN,
 * and offline that error kills the process from inside its worker. `cacheMethod: 'none'` keeps
 * it from writing traineddata into the working directory. It runs in its own worker thread.
 */
export function createOcr() {
  let worker: Promise<Tesseract.Worker> | null = null;
  const langPath = join(dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int');
  const started = () =>
    (worker ??= Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: 'none',
    }).then(async (created) => {
      // PNGs carry no DPI; say it, rather than have tesseract guess and warn on every image.
      await created.setParameters({ user_defined_dpi: '300' });
      return created;
    }));
  return {
    async read(png: Buffer): Promise<{ text: string; confidence: number }> {
      const { data } = await (await started()).recognize(png);
      return { text: data.text, confidence: data.confidence };
    },
    /** Starts the worker and loads the language model now (a preload at start). */
    async warmUp(): Promise<void> {
      await started();
    },
    async close(): Promise<void> {
      const pending = worker;
      worker = null;
      if (pending) await (await pending).terminate();
    },
  };
}
