import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { type FakeOpenAiVideo, startFakeOpenAiVideo } from '../../fixtures/fake-openai-video.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';
import { decodeVideo } from '../../helpers/video-check.js';

const KEY = 'sk-test-video-remote-0123456789';

const config = (fake: FakeOpenAiVideo) => ({
  providers: {
    sora: { type: 'openai-video', baseUrl: fake.baseUrl, model: 'sora-2', apiKey: KEY, pollIntervalMs: 100 },
  },
  videoModels: {
    sora: {
      provider: 'sora',
      price: { perSecond: '0.1' },
      capabilities: {
        maxInputs: 1,
        negativePrompt: false,
        maxDurationS: 10,
        maxFps: 30,
        maxSize: '1280x720',
        nativeSize: '1280x720',
      },
    },
  },
  fetch: { allowPrivateAddresses: true },
});

async function video(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse in a storm', model: 'sora', ...body },
  });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 30_000);
}

async function uploaded(h: Harness): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 200, height: 200 }))]), 'a.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { files: { id: string }[] } }).data.files[0].id;
}

test('a remote OpenAI-compatible video model over HTTP: MP4 as made, WebP converted, priced per second', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.pollsToComplete = 1;
  const h = await startService(t, { config: config(fake) });

  const task = await video(h, { duration_s: 4, size: '16:9', inputs: [await uploaded(h)] });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.model, 'sora');
  const [item] = task.result.videos;
  assert.equal(item.status, 'success', JSON.stringify(item));
  assert.equal(item.format, 'mp4');
  assert.equal(item.cost, '0.4', '0.1 × 4 s');
  assert.equal(task.cost, '0.4');
  const res = await fetch(item.service_url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'video/mp4');
  // Stored as it came, not re-encoded (a lossy encode changes pixels); signed, so the file holds its credentials too.
  const storedClip = Buffer.from(await res.arrayBuffer());
  assert.equal(item.provenance, 'signed');
  assert.ok(
    (await decodeVideo(storedClip)).pixels.equals((await decodeVideo(fake.mp4)).pixels),
    "the provider's clip, stored as it came",
  );

  const [create] = fake.creates();
  assert.deepEqual(create.fields, {
    model: 'sora-2',
    prompt: 'a lighthouse in a storm',
    seconds: '4',
    size: '1280x720',
  });
  assert.deepEqual(
    create.files?.map((f) => [f.field, f.type, `${f.width}x${f.height}`]),
    [['input_reference', 'image/png', '1280x720']],
    'the first frame, covered to the clip size',
  );
  assert.ok(fake.requests.every((r) => r.authorization === `Bearer ${KEY}`));

  const webp = await video(h, { duration_s: 2, format: 'webp' });
  const [clip] = webp.result.videos;
  assert.equal(clip.status, 'success', JSON.stringify(clip));
  assert.equal(clip.format, 'webp');
  assert.equal(clip.cost, '0.2');
  const stored = await fetch(clip.service_url);
  assert.equal(stored.status, 200);
  const meta = await sharp(Buffer.from(await stored.arrayBuffer()), { animated: true }).metadata();
  assert.equal(meta.format, 'webp');
  assert.ok((meta.pages ?? 0) > 1, `an animated WebP (${meta.pages} frames)`);

  const record = JSON.stringify((await h.request('GET', `/tasks/${task.id}`, { auth: h.apiKey })).json);
  assert.equal(record.includes(KEY), false, 'the provider key never appears in a task');
  assert.equal(h.logs.join('\n').includes(KEY), false, 'nor in the logs');
});

test('a remote video job the provider refuses is an item failure: RESTRICTED_CONTENT, not retried, nothing charged', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.pollsToComplete = 1;
  fake.mode = 'job-failed';
  const h = await startService(t, { config: config(fake) });
  const task = await video(h, { duration_s: 4 });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.videos[0].status, 'failed');
  assert.equal(task.result.videos[0].error.code, 'RESTRICTED_CONTENT');
  assert.equal(task.cost, '0');
  assert.equal(fake.creates().length, 1, 'a refusal is not retried');
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
});

test('a remote video provider failing every attempt gives PROVIDER_ERROR after 3 attempts', async (t) => {
  const fake = await startFakeOpenAiVideo(t, KEY);
  fake.mode = 'server-error';
  const h = await startService(t, { config: config(fake) });
  const task = await video(h, { duration_s: 4 });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.videos[0].status, 'failed');
  assert.equal(task.result.videos[0].error.code, 'PROVIDER_ERROR');
  assert.equal(fake.creates().length, 3, 'SPEC part 7: 3 attempts per video');
  assert.equal(task.cost, '0');
});
