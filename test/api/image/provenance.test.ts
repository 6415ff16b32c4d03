import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { IMAGE_MIME } from '../../../src/domain/media-types.js';
import { readCredentials } from '../../helpers/credentials.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';
import { startS3 } from '../../helpers/s3.js';
import { tempDir } from '../../helpers/temp-dir.js';

const TRAINED = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** Small images keep signing and decoding quick; private addresses for the served inputs and the S3 server. */
const SMALL = {
  fetch: { allowPrivateAddresses: true },
  destinations: { allowPrivateAddresses: true },
  models: {
    placeholder: {
      provider: 'placeholder',
      price: { perImage: '0.001', perInput: '0.0005' },
      capabilities: { maxInputs: 4, supports4k: false, negativePrompt: true, nativeSize: '256x256' },
    },
  },
};
const OFF = { ...SMALL, provenance: { enabled: false } };

async function generate(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dawn', seed: 7, ...body },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 30_000);
  assert.equal(task.status, 'completed', JSON.stringify(task.errors));
  return task;
}

async function served(url: string): Promise<{ data: Buffer; type: string | null }> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return { data: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

const pixels = async (data: Buffer) => (await sharp(data).raw().toBuffer({ resolveWithObject: true })).data;

test('every generated image is stored signed (png, jpg, webp): created by a trained model, the task, model, provider and seed, no prompt; size, format and pixels unchanged', async (t) => {
  const h = await startService(t, { config: SMALL });
  const plain = await startService(t, { config: OFF });
  for (const format of ['png', 'jpg', 'webp'] as const) {
    const task = await generate(h, { output: { format } });
    const [item] = task.result.images;
    assert.equal(item.status, 'success');
    assert.equal(item.provenance, 'signed', format);
    assert.equal(item.size, '256x256');
    const { data, type } = await served(item.service_url);
    assert.equal(type, IMAGE_MIME[format]);
    const meta = await sharp(data).metadata();
    assert.equal(`${meta.width}x${meta.height}`, item.size, 'the signed file has the reported size');
    assert.equal(meta.format, format === 'jpg' ? 'jpeg' : format);

    const credentials = await readCredentials(data, IMAGE_MIME[format]);
    assert.ok(credentials, `${format}: the served file carries a C2PA manifest`);
    assert.deepEqual(credentials.failures, [], `${format}: the manifest validates`);
    assert.deepEqual(
      credentials.actions.map((a) => [a.action, a.digitalSourceType]),
      [['c2pa.created', TRAINED]],
    );
    assert.equal(credentials.claimGenerator[0]?.name, 'imgtask');
    const { imgtask } = credentials;
    assert.equal(imgtask.taskId, task.id);
    assert.equal(imgtask.taskType, 'image.generate');
    assert.equal(imgtask.model, 'placeholder');
    assert.equal(imgtask.provider, 'placeholder');
    assert.equal(imgtask.seed, item.seed);
    assert.equal(item.seed, 7);
    assert.match(
      String(imgtask.parametersSha256),
      /^[0-9a-f]{64}$/,
      'not a ComfyUI model: the generation parameters are hashed',
    );
    assert.equal(imgtask.workflowSha256, undefined);
    assert.equal(imgtask.prompt, undefined, 'no prompt without provenance.includePrompt');
    assert.equal(imgtask.rating, undefined, 'not rated');
    assert.equal(credentials.ingredients.length, 0);

    // The same request on a server that does not sign: the same pixels, no manifest.
    const unsigned = (await generate(plain, { output: { format } })).result.images[0];
    assert.equal(unsigned.provenance, 'unsigned');
    const plainBytes = (await served(unsigned.service_url)).data;
    assert.equal(
      await readCredentials(plainBytes, IMAGE_MIME[format]),
      null,
      `${format}: provenance.enabled false stores no manifest`,
    );
    assert.ok((await pixels(data)).equals(await pixels(plainBytes)), `${format}: signing changes no pixel`);
    assert.ok(data.length > plainBytes.length, 'the manifest is in the file');
  }
});

test('the same generation parameters hash the same; another seed hashes otherwise', async (t) => {
  const h = await startService(t, { config: SMALL });
  const hashOf = async (body: Record<string, unknown>) => {
    const item = (await generate(h, { output: { format: 'png' }, ...body })).result.images[0];
    return (await readCredentials((await served(item.service_url)).data, 'image/png'))?.imgtask.parametersSha256;
  };
  const first = await hashOf({});
  assert.equal(await hashOf({ prompt: 'another prompt' }), first, 'the prompt is not a generation parameter');
  assert.notEqual(await hashOf({ seed: 8 }), first);
});

test('generate with inputs is an edit of the first input, named as the ingredient; a rated image carries its level', async (t) => {
  const h = await startService(t, { config: SMALL });
  const url = await serveFiles(t, {
    '/red.png': await makeImage({ rgb: [220, 30, 30], width: 64, height: 64 }),
    '/blue.jpg': await makeImage({ rgb: [30, 30, 220], format: 'jpeg' }),
  });
  const task = await generate(h, {
    inputs: [url('/red.png'), url('/blue.jpg')],
    rating: true,
    output: { format: 'jpg' },
  });
  const [item] = task.result.images;
  assert.equal(item.provenance, 'signed');
  assert.equal(item.rating.status, 'success');
  const credentials = await readCredentials((await served(item.service_url)).data, 'image/jpeg');
  assert.ok(credentials);
  assert.deepEqual(credentials.failures, []);
  assert.ok(
    credentials.actions.some((a) => a.action === 'c2pa.edited' && a.digitalSourceType === TRAINED),
    JSON.stringify(credentials.actions),
  );
  assert.ok(!credentials.actions.some((a) => a.action === 'c2pa.created'));
  assert.deepEqual(
    credentials.ingredients,
    [{ title: 'input.png', relationship: 'parentOf' }],
    'the first input is the source of the edit',
  );
  assert.equal(
    credentials.imgtask.rating,
    item.rating.level,
    'the rating ran before storing, so its level is in the credentials',
  );
});

test('remove-background stores a signed edit of its source image (png and webp)', async (t) => {
  const h = await startService(t, { config: SMALL });
  const url = await serveFiles(t, { '/photo.jpg': await makeImage({ width: 120, height: 80, format: 'jpeg' }) });
  for (const format of ['png', 'webp'] as const) {
    const res = await h.request('POST', '/image/remove-background', {
      auth: h.apiKey,
      body: { url: url('/photo.jpg'), output: { format } },
    });
    const task = await waitForTask(h, res.json.data.taskId);
    assert.equal(task.status, 'completed');
    const { image } = task.result;
    assert.equal(image.provenance, 'signed');
    assert.equal(image.size, '120x80');
    const { data } = await served(image.service_url);
    assert.equal((await sharp(data).metadata()).hasAlpha, true, 'signing keeps the cut-out');
    const credentials = await readCredentials(data, IMAGE_MIME[format]);
    assert.ok(credentials, format);
    assert.deepEqual(credentials.failures, []);
    assert.ok(credentials.actions.some((a) => a.action === 'c2pa.edited'));
    assert.deepEqual(credentials.ingredients, [{ title: 'source.jpg', relationship: 'parentOf' }]);
    assert.equal(credentials.imgtask.taskId, task.id);
    assert.equal(credentials.imgtask.taskType, 'image.remove_background');
  }
  const plain = await startService(t, { config: OFF });
  const res = await plain.request('POST', '/image/remove-background', {
    auth: plain.apiKey,
    body: { url: url('/photo.jpg') },
  });
  const { image } = (await waitForTask(plain, res.json.data.taskId)).result;
  assert.equal(image.provenance, 'unsigned');
  assert.equal(await readCredentials((await served(image.service_url)).data, 'image/png'), null);
});

test('destinations receive the signed bytes, the same as /images serves (a local folder and an S3 bucket)', async (t) => {
  const root = await tempDir(t);
  const s3 = await startS3(t);
  const h = await startService(t, {
    config: { ...SMALL, destinations: { allowPrivateAddresses: true, local: { allowedRoots: [root] } } },
  });
  const folder = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'disk', provider: { id: 'local' }, config: { path: join(root, 'out') } },
  });
  assert.equal(folder.status, 201, folder.text);
  const bucket = await h.request('POST', '/destinations', {
    auth: h.token,
    body: {
      name: 'bucket',
      provider: { id: 's3' },
      config: {
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      },
    },
  });
  assert.equal(bucket.status, 201, bucket.text);

  const onDisk = (await generate(h, { destination: 'disk', output: { format: 'png' } })).result.images[0];
  assert.equal(onDisk.destination.status, 'success');
  const written = await readFile(join(root, 'out', onDisk.destination.key));
  assert.ok(written.equals((await served(onDisk.service_url)).data), 'the folder has the bytes /images serves');
  assert.ok(await readCredentials(written, 'image/png'), 'and they are signed');

  const inBucket = (await generate(h, { destination: 'bucket', output: { format: 'webp' } })).result.images[0];
  assert.equal(inBucket.destination.status, 'success');
  const object = await s3.read(inBucket.destination.key);
  assert.ok(object.body.equals((await served(inBucket.service_url)).data), 'the bucket has the bytes /images serves');
  const credentials = await readCredentials(object.body, 'image/webp');
  assert.equal(credentials?.imgtask.seed, inBucket.seed);
});
