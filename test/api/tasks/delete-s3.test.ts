import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';
import { startS3 } from '../../helpers/s3.js';

/**
 * images.storage s3 on the test bucket under `fleet/`, with the placeholder video model small (the real encoder stays
 * fast).
 */
const onBucket = (s3: { endpoint: string; bucket: string }) => ({
  images: {
    storage: 's3',
    s3: {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      prefix: 'fleet/',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
  },
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
});

const fileOf = (serviceUrl: string) => serviceUrl.split('/').pop()!;
/** The sharded key of a file: `fleet/<folder>/<2 chars after the prefix>/<file>`. */
const keyOf = (folder: 'images' | 'videos', file: string) => `fleet/${folder}/${file.slice(4, 6)}/${file}`;
/** Every image and video object in the bucket (not the service's marks beside them). */
const mediaKeys = async (s3: Awaited<ReturnType<typeof startS3>>) =>
  [...(await s3.keys('fleet/images/')), ...(await s3.keys('fleet/videos/'))].sort();

async function created(h: Harness, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.request('POST', path, { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 30_000);
}

test('with images.storage s3, deleting tasks and an upload deletes their objects from the bucket: images, cut-outs, videos and posters', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: onBucket(s3) });
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 96, height: 96 }))]), 'input.png');
  const uploaded = (await (
    await fetch(`${h.url}/image/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}` },
      body: form,
    })
  ).json()) as any;
  const input = uploaded.data.files[0];

  const generated = await created(h, '/image/generate', { prompt: 'a lighthouse', count: 2 });
  const cut = await created(h, '/image/remove-background', { url: input.id });
  const video = await created(h, '/video/generate', { prompt: 'a fox', duration_s: 1, fps: 8 });
  const images = [
    ...generated.result.images.map((i: { service_url: string }) => fileOf(i.service_url)),
    fileOf(cut.result.image.service_url),
  ];
  const videoFile = fileOf(video.result.videos[0].service_url);
  const outputs = [
    ...images.map((f) => keyOf('images', f)),
    keyOf('videos', videoFile),
    keyOf('videos', videoFile.replace(/\.mp4$/, '.poster.webp')),
  ];
  const uploadKey = keyOf('images', fileOf(input.service_url));
  assert.deepEqual(
    await mediaKeys(s3),
    [...outputs, uploadKey].sort(),
    'every output, the poster and the upload are objects',
  );

  for (const task of [generated, cut, video]) {
    const res = await h.request('DELETE', `/tasks/${task.id}`, { auth: h.apiKey });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.dataRemoved, true);
  }
  assert.deepEqual(
    await mediaKeys(s3),
    [uploadKey],
    'the outputs and the poster are gone from the bucket; the upload a task read is not',
  );
  for (const task of [generated, cut])
    for (const url of [task.result.images?.[0]?.service_url ?? task.result.image.service_url])
      assert.equal((await fetch(url)).status, 404);
  assert.equal((await fetch(video.result.videos[0].service_url)).status, 404);

  const removed = await h.request('DELETE', `/image/upload/${input.id}`, { auth: h.apiKey });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(await mediaKeys(s3), [], 'the upload is gone too');
  assert.equal((await fetch(input.service_url)).status, 404);
});
