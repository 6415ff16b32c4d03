// Worker thread for the embedded NSFW classifier (nsfwjs MobileNetV2 on tfjs). Kept as plain
// JavaScript: worker threads do not inherit the TypeScript loader of the main thread.
// Protocol: in { id, pixels (Uint8Array, RGB), width, height } → out { id, predictions, backend } | { id, error };
// in { id, warmUp: true } → out { id, backend } once the model is loaded (a preload at start).
import { parentPort } from 'node:worker_threads';

// Two notices the libraries print on their own, neither of which an operator can act on: nsfwjs
// names the bundled model it loads ("You're using the model: 'MobileNetV2' …", console.info),
// and tfjs's cpu backend, on its first use in Node.js, suggests installing tfjs-node
// ("Hi, looks like you are running TensorFlow.js in Node.js …", console.warn). Only these two
// are dropped; anything else this thread prints still goes out.
const LIBRARY_NOTICES = [/^(%c)?You're using the model: /, /looks like you are running TensorFlow\.js in Node\.js/];
for (const method of ['info', 'warn']) {
  const print = console[method].bind(console);
  console[method] = (...args) => {
    if (typeof args[0] === 'string' && LIBRARY_NOTICES.some((notice) => notice.test(args[0]))) return;
    print(...args);
  };
}

let ready = null;

async function load() {
  const tf = await import('@tensorflow/tfjs');
  await import('@tensorflow/tfjs-backend-wasm'); // reads its .wasm from node_modules; no network
  try {
    await tf.setBackend('wasm');
    await tf.ready();
  } catch {
    // fall through to the pure-JS backend
  }
  // tfjs can stay on another backend silently: check, and fall back to cpu explicitly.
  if (tf.getBackend() !== 'wasm') {
    await tf.setBackend('cpu');
    await tf.ready();
  }
  const nsfwjs = await import('nsfwjs');
  const model = await nsfwjs.load('MobileNetV2'); // bundled in the package as JS modules
  // nsfwjs's own warm-up runs predict only; one classify more pays the first call's extra cost here.
  const blank = tf.zeros([224, 224, 3], 'int32');
  await model.classify(blank, 5);
  blank.dispose();
  return { tf, model, backend: tf.getBackend() };
}

parentPort.on('message', async ({ id, warmUp, pixels, width, height }) => {
  try {
    ready ??= load();
    const { tf, model, backend } = await ready;
    if (warmUp) return parentPort.postMessage({ id, backend });
    const tensor = tf.tensor3d(pixels, [height, width, 3], 'int32');
    try {
      const predictions = await model.classify(tensor, 5);
      parentPort.postMessage({ id, predictions, backend });
    } finally {
      tensor.dispose();
    }
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ?? err) });
  }
});
