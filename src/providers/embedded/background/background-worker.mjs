// Worker thread for embedded background removal (@imgly/background-removal-node, ISNet
// bundled in the package, on onnxruntime-node). Plain JavaScript: worker threads do not
// inherit the TypeScript loader of the main thread.
// Protocol: in { id, data (PNG, JPEG or WebP bytes), type (its MIME type), model, threads } →
// out { id, data (PNG with alpha) } | { id, error }; in { id, warmUp: true, model, threads } →
// out { id } once the model's session exists (a preload at start).
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parentPort } from 'node:worker_threads';

let ready = null;

async function load(threads) {
  // imgly hard-codes executionMode 'parallel', which spends 2 cores for almost no gain. Patch the
  // one shared onnxruntime class before imgly imports it: sequential with `threads` intra-op
  // threads runs about 1.5x faster, and without the memory pattern it peaks lower.
  const ort = await import('onnxruntime-node');
  const create = ort.InferenceSession.create.bind(ort.InferenceSession);
  ort.InferenceSession.create = (model, options = {}) =>
    create(model, {
      ...options,
      executionMode: 'sequential',
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      enableMemPattern: false,
    });
  const imgly = await import('@imgly/background-removal-node');
  // The default publicPath is relative to the process's working directory; point it at the package.
  const publicPath = pathToFileURL(
    `${dirname(fileURLToPath(import.meta.resolve('@imgly/background-removal-node')))}/`,
  ).href;
  return { imgly, publicPath };
}

/** imgly keeps one session per JSON of its config: build it in one place so a warm-up and a call share it. */
const settings = (publicPath, model) => ({ publicPath, model, output: { format: 'image/png', type: 'foreground' } });

/** The marker type of the warm-up's empty image, which imgly refuses after it created the session. */
const WARM_UP = 'application/x-imgtask-warm-up';

parentPort.on('message', async ({ id, warmUp, data, type, model, threads }) => {
  try {
    ready ??= load(threads);
    const { imgly, publicPath } = await ready;
    if (warmUp) {
      // imgly has no preload: it creates the session, then reads the image. An image it does not
      // read stops it right there, with the session made and kept for the first real call.
      const refused = await imgly.removeBackground(new Blob([], { type: WARM_UP }), settings(publicPath, model)).then(
        () => null,
        (err) => err,
      );
      if (!String(refused?.message).includes(WARM_UP)) throw refused ?? new Error('the warm-up image was read');
      return parentPort.postMessage({ id });
    }
    // A bare buffer has no type and is refused; a Blob with its MIME type is read (decoded once, by imgly).
    const blob = new Blob([data], { type: type ?? 'image/png' });
    const result = await imgly.removeBackground(blob, settings(publicPath, model));
    const out = new Uint8Array(await result.arrayBuffer());
    parentPort.postMessage({ id, data: out }, [out.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ?? err) });
  }
});
