import assert from 'node:assert/strict';
import { test } from 'node:test';
import { probeVideo } from '../../../src/media/video-probe.js';
import { readCredentials } from '../../helpers/credentials.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';
import { decodeVideo, webpFrames } from '../../helpers/video-check.js';

/** Small frames keep the real encoder fast: the placeholder model capped at 320x180, native 160x90. */
const SMALL = {
  fetch: { allowPrivateAddresses: true },
  videoModels: {
    placeholder: {
      provider: 'placeholder',
      price: { perSecond: '0.002', perInput: '0.0005' },
      capabilities: {
        maxInputs: 1,
        negativePrompt: true,
        maxDurationS: 10,
        maxFps: 30,
        maxSize: '320x180',
        nativeSize: '160x90',
      },
    },
  },
};

async function video(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a red fox running through snow', duration_s: 1, fps: 8, seed: 11, ...body },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 30_000);
  assert.equal(task.status, 'completed');
  return task;
}

async function served(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

test('every video is stored signed (mp4 and animated webp): created by a trained model, with the task, model and seed; still playable, its size, length and rate unchanged', async (t) => {
  const h = await startService(t, { config: SMALL });
  for (const [format, mimeType] of [
    ['mp4', 'video/mp4'],
    ['webp', 'image/webp'],
  ] as const) {
    const task = await video(h, { format });
    const [item] = task.result.videos;
    assert.equal(item.provenance, 'signed', format);
    const data = await served(item.service_url);
    const info = probeVideo(data);
    assert.deepEqual(
      [`${info.width}x${info.height}`, info.durationS, info.fps, info.format],
      [item.size, item.duration_s, item.fps, format],
      'the signed file is the clip reported',
    );
    if (format === 'mp4') assert.equal((await decodeVideo(data)).frames, 8, 'ffmpeg still decodes every frame');
    else assert.equal((await webpFrames(data)).frames.length, 8, 'sharp still decodes every frame');
    const credentials = await readCredentials(data, mimeType);
    assert.ok(credentials, `${format}: the served video carries a C2PA manifest`);
    assert.deepEqual(credentials.failures, []);
    assert.deepEqual(
      credentials.actions.map((a) => a.action),
      ['c2pa.created'],
    );
    assert.equal(
      credentials.actions[0].digitalSourceType,
      'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
    );
    assert.equal(credentials.imgtask.taskId, task.id);
    assert.equal(credentials.imgtask.taskType, 'video.generate');
    assert.equal(credentials.imgtask.model, 'placeholder');
    assert.equal(credentials.imgtask.provider, 'placeholder');
    assert.equal(credentials.imgtask.seed, 11);
    assert.match(String(credentials.imgtask.parametersSha256), /^[0-9a-f]{64}$/);
    // The poster (the console's still of the video) is a preview made from the same frames, not signed.
    const poster = await h.server.services.videos.poster(`${item.id}.${format}`);
    assert.ok(poster, 'a poster was made');
    assert.equal(await readCredentials(poster, 'image/webp'), null);
  }
});

test('a video from a first-frame input is an edit of it; with provenance off a video is stored unsigned', async (t) => {
  const h = await startService(t, { config: SMALL });
  const url = await serveFiles(t, { '/first.png': await makeImage({ width: 160, height: 90, rgb: [30, 140, 60] }) });
  const [item] = (await video(h, { inputs: [url('/first.png')] })).result.videos;
  assert.equal(item.provenance, 'signed');
  const credentials = await readCredentials(await served(item.service_url), 'video/mp4');
  assert.ok(credentials);
  assert.ok(
    credentials.actions.some((a) => a.action === 'c2pa.edited'),
    JSON.stringify(credentials.actions),
  );
  assert.deepEqual(credentials.ingredients, [{ title: 'first-frame.png', relationship: 'parentOf' }]);

  const plain = await startService(t, { config: { ...SMALL, provenance: { enabled: false } } });
  const [unsigned] = (await video(plain, { format: 'webp' })).result.videos;
  assert.equal(unsigned.provenance, 'unsigned');
  assert.equal(await readCredentials(await served(unsigned.service_url), 'image/webp'), null);
});
