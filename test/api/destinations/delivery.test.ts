import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { sniffImage } from '../../../src/media/images.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startS3 } from '../../helpers/s3.js';
import { tempDir } from '../../helpers/temp-dir.js';

const PRIVATE_OK = {
  destinations: { allowPrivateAddresses: true, local: { allowedRoots: [] as string[] } },
  fetch: { allowPrivateAddresses: true },
};

async function destination(h: Harness, name: string, provider: string, config: Record<string, unknown>) {
  const res = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name, provider: { id: provider }, config },
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data as { id: string };
}

const generate = async (h: Harness, body: Record<string, unknown>) =>
  waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a lighthouse', ...body } })).json
      .data.taskId,
  );

test('local: each image is written under the folder with the key template; url is the public base or null', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t, {
    config: { ...PRIVATE_OK, destinations: { ...PRIVATE_OK.destinations, local: { allowedRoots: [root] } } },
  });
  await destination(h, 'disk', 'local', {
    path: join(root, 'out'),
    keyTemplate: 'gen/{taskId}/{index}-{imageId}.{ext}',
  });
  await destination(h, 'cdn', 'local', { path: join(root, 'cdn'), publicBaseUrl: 'https://cdn.example/img' });
  const task = await generate(h, { count: 2, destination: 'disk', output: { format: 'png' } });
  assert.equal(task.status, 'completed');
  for (const [index, image] of task.result.images.entries()) {
    assert.equal(image.status, 'success');
    assert.equal(image.url, null, 'delivered only to a destination without a public URL');
    assert.match(image.service_url, /\/images\/img_/);
    assert.deepEqual(image.destination, {
      name: 'disk',
      status: 'success',
      key: `gen/${task.id}/${index}-${image.id}.png`,
      url: null,
    });
    const written = await readFile(join(root, 'out', image.destination.key));
    assert.equal(sniffImage(written), 'png');
    assert.deepEqual(
      written,
      Buffer.from(await (await fetch(image.service_url)).arrayBuffer()),
      'the same bytes as the service copy',
    );
  }
  const cdn = await generate(h, { destination: 'cdn' });
  assert.match(
    cdn.result.images[0].url,
    new RegExp(`^https://cdn\\.example/img/\\d{4}-\\d\\d-\\d\\d/${cdn.id}/${cdn.result.images[0].id}\\.webp$`),
  );
  assert.equal(cdn.cost, '0.001', 'delivery does not change the price');
});

test("local: with no roots configured, the data dir's exports folder takes deliveries", async (t) => {
  const h = await startService(t, { config: PRIVATE_OK });
  const exportsDir = join(h.dataDir, 'exports');
  await destination(h, 'exports', 'local', { path: join(exportsDir, 'gen'), keyTemplate: '{imageId}.{ext}' });
  const task = await generate(h, { destination: 'exports', output: { format: 'png' } });
  const [image] = task.result.images;
  assert.deepEqual(image.destination, { name: 'exports', status: 'success', key: `${image.id}.png`, url: null });
  assert.equal(sniffImage(await readFile(join(exportsDir, 'gen', image.destination.key))), 'png');
  const outside = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'beside', provider: { id: 'local' }, config: { path: join(h.dataDir, 'store') } },
  });
  assert.equal(outside.status, 400, 'the rest of the data dir stays closed');
  assert.match(outside.json.message, /exports folder/);
});

test('local: a symlink that leads out of the allowed roots is refused at write time', async (t) => {
  const root = await tempDir(t);
  const outside = await tempDir(t);
  const h = await startService(t, {
    config: { ...PRIVATE_OK, destinations: { ...PRIVATE_OK.destinations, local: { allowedRoots: [root] } } },
  });
  await mkdir(join(root, 'out'));
  await symlink(outside, join(root, 'out', 'escape'));
  await destination(h, 'trap', 'local', { path: join(root, 'out'), keyTemplate: 'escape/{imageId}.{ext}' });
  const task = await generate(h, { destination: 'trap' });
  const [image] = task.result.images;
  assert.equal(image.status, 'success', 'the image itself succeeded');
  assert.equal(image.url, null);
  assert.equal(image.destination.status, 'failed');
  assert.match(image.destination.error.message, /outside the allowed roots/);
  assert.deepEqual(await readdir(outside), [], 'nothing was written outside');
});

test('s3: images are put into a real S3-compatible store, with prefix, content type and public URL', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: PRIVATE_OK });
  await destination(h, 'bucket', 's3', {
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    prefix: 'renders/',
    publicBaseUrl: 'https://img.example',
  });
  const task = await generate(h, { count: 2, destination: 'bucket', output: { format: 'jpg' } });
  for (const image of task.result.images) {
    assert.equal(image.destination.status, 'success');
    assert.match(image.destination.key, /^renders\//, 'the object key, prefix included');
    const object = await s3.read(image.destination.key);
    assert.equal(object.contentType, 'image/jpeg');
    assert.equal(sniffImage(object.body), 'jpeg');
    assert.equal(image.url, `https://img.example/${image.destination.key}`);
  }
  const tested = await h.request(
    'POST',
    `/destinations/${(await h.request('GET', '/destinations', { auth: h.token })).json.data[0].id}/test`,
    { auth: h.token },
  );
  assert.equal(tested.status, 200);
  assert.equal(tested.json.data.ok, true);
  assert.equal(tested.json.data.deleted, true, 'the test object is deleted again (written-objects.test.ts)');
});

test("s3: a bucket that does not exist fails the test with 502 DESTINATION_TEST_FAILED and the storage's message", async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: PRIVATE_OK });
  const d = await destination(h, 'missing', 's3', {
    bucket: 'no-such-bucket',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });
  const res = await h.request('POST', `/destinations/${d.id}/test`, { auth: h.token });
  assert.equal(res.status, 502);
  assert.equal(res.json.code, 'DESTINATION_TEST_FAILED');
  assert.match(res.json.message, /NoSuchBucket/);
});

test("http: each image is PUT to the URL template with the headers; a storage that refuses mid-task fails those images' delivery only", async (t) => {
  const store = await startReceiver(t, [201, 500, 201]);
  const h = await startService(t, { config: PRIVATE_OK });
  await destination(h, 'put', 'http', {
    urlTemplate: store.url('/bucket/{key}'),
    headers: { authorization: 'Bearer storage-token-abcd' },
    publicUrlTemplate: 'https://files.example/{key}',
  });
  const task = await generate(h, { count: 3, destination: 'put' });
  assert.equal(task.status, 'completed');
  const outcomes = task.result.images
    .map((image: { destination: { status: string } }) => image.destination.status)
    .sort();
  assert.deepEqual(outcomes, ['failed', 'success', 'success']);
  const failed = task.result.images.find(
    (image: { destination: { status: string } }) => image.destination.status === 'failed',
  );
  assert.equal(failed.status, 'success', 'the image was made and stays at its service URL');
  assert.equal(failed.url, null);
  assert.deepEqual(Object.keys(failed.destination.error).sort(), ['code', 'message', 'provider_response']);
  assert.equal(failed.destination.error.code, 'PROVIDER_ERROR');
  assert.match(failed.destination.error.provider_response, /^HTTP 500/);
  assert.equal(task.cost, '0.003', 'every image is charged: each was made');
  const ok = task.result.images.find(
    (image: { destination: { status: string } }) => image.destination.status === 'success',
  );
  assert.equal(ok.url, `https://files.example/${ok.destination.key}`);
  assert.equal(store.received.length, 3);
  for (const request of store.received) {
    assert.equal(request.headers.authorization, 'Bearer storage-token-abcd');
    assert.equal(request.headers['content-type'], 'image/webp');
    assert.match(request.path, /^\/bucket\/\d{4}-\d\d-\d\d\/tsk_/);
  }
  const list = JSON.stringify((await h.request('GET', '/destinations', { auth: h.token })).json);
  assert.equal(list.includes('storage-token-abcd'), false);
  assert.match(list, /\*\*\*\*abcd/);
});

test('remove-background delivers its image too, and an unknown destination is refused before anything is reserved', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t, {
    config: { ...PRIVATE_OK, destinations: { ...PRIVATE_OK.destinations, local: { allowedRoots: [root] } } },
  });
  await destination(h, 'cutouts', 'local', { path: root, publicBaseUrl: 'https://cut.example' });
  const form = new FormData();
  const { makeImage } = await import('../../helpers/images.js');
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 80, height: 80 }))]), 'a.png');
  const [file] = (
    (await (
      await fetch(`${h.url}/image/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}` },
        body: form,
      })
    ).json()) as { data: { files: { service_url: string }[] } }
  ).data.files;
  const task = await waitForTask(
    h,
    (
      await h.request('POST', '/image/remove-background', {
        auth: h.apiKey,
        body: { url: file.service_url, destination: 'cutouts' },
      })
    ).json.data.taskId,
  );
  assert.equal(task.status, 'completed');
  assert.equal(task.result.image.destination.status, 'success');
  assert.equal(task.result.image.url, `https://cut.example/${task.result.image.destination.key}`);
  assert.equal(sniffImage(await readFile(join(root, task.result.image.destination.key))), 'png');
  const unknown = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'p', destination: 'nowhere' },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'VALIDATION_ERROR');
});

test('by default destinations on private addresses are refused by the SSRF guard, for HTTP and S3 alike', async (t) => {
  const store = await startReceiver(t, [201]);
  const s3 = await startS3(t);
  const h = await startService(t);
  const http = await destination(h, 'put', 'http', { urlTemplate: store.url('/{key}') });
  const bucket = await destination(h, 'bucket', 's3', {
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });
  for (const d of [http, bucket]) {
    const res = await h.request('POST', `/destinations/${d.id}/test`, { auth: h.token });
    assert.equal(res.status, 400, 'the settings refuse the address, not the storage');
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    assert.match(res.json.message, /may not reach \(unless destinations\.allowPrivateAddresses is true\)/);
  }
  const task = await generate(h, { destination: 'put' });
  assert.equal(task.result.images[0].destination.status, 'failed');
  assert.equal(store.received.length, 0);
});
