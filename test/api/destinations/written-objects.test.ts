import assert from 'node:assert/strict';
import { once } from 'node:events';
import { access, readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { startS3 } from '../../helpers/s3.js';
import { tempDir } from '../../helpers/temp-dir.js';

// What the reported `key` of a written object names, what the object carries, and what a test upload leaves behind.

const PRIVATE_OK = { destinations: { allowPrivateAddresses: true }, fetch: { allowPrivateAddresses: true } };
const S3_LOGIN = { forcePathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

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

const testUpload = (h: Harness, id: string) => h.request('POST', `/destinations/${id}/test`, { auth: h.token });

/** An HTTP storage on loopback that records each request's method, and answers each method as scripted. */
async function startHttpStorage(t: TestContext, answers: Record<string, number>) {
  const requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: Buffer }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.statusCode = answers[req.method ?? ''] ?? 405;
      res.end(res.statusCode < 300 ? '' : 'not here');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, requests };
}

test('s3: the reported key is the object key, prefix included; the object carries Cache-Control and the task id; keys that need encoding are encoded in the URL', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: { ...PRIVATE_OK, images: { cacheMaxAgeSeconds: 600 } } });
  await destination(h, 'bucket', 's3', {
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    ...S3_LOGIN,
    prefix: 'renders/',
    publicBaseUrl: 'https://img.example/',
    keyTemplate: 'my set #1/{taskId}/{imageId}.{ext}',
  });
  const task = await generate(h, { count: 2, destination: 'bucket', output: { format: 'png' } });
  for (const image of task.result.images) {
    const { key, url } = image.destination;
    assert.equal(key, `renders/my set #1/${task.id}/${image.id}.png`);
    const object = await s3.head(key);
    assert.ok(object, `HeadObject ${key} finds the object`);
    assert.equal(object.contentType, 'image/png');
    assert.equal(
      object.cacheControl,
      'public, max-age=600',
      "the server's images.cacheMaxAgeSeconds, not immutable: an image can be deleted",
    );
    assert.equal(object.metadata['task-id'], task.id);
    assert.equal(url, `https://img.example/renders/my%20set%20%231/${task.id}/${image.id}.png`);
    assert.equal(image.url, url);
  }
  assert.equal((await s3.keys()).length, 2, 'nothing written under another key');
});

test('s3: the test upload is written under the prefix and deleted afterwards; the answer names its full key', async (t) => {
  const s3 = await startS3(t);
  const h = await startService(t, { config: PRIVATE_OK });
  const d = await destination(h, 'bucket', 's3', {
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    ...S3_LOGIN,
    prefix: 'renders/',
    publicBaseUrl: 'https://img.example',
  });
  const res = await testUpload(h, d.id);
  assert.equal(res.status, 200, res.text);
  const { ok, key, url, deleted } = res.json.data;
  assert.equal(ok, true);
  assert.match(key, /^renders\/imgtask-test\/\w+\.txt$/);
  assert.equal(url, `https://img.example/${key}`);
  assert.equal(deleted, true);
  assert.equal(res.json.data.deleteError, undefined);
  assert.equal(await s3.head(key), null, 'HeadObject with the reported key: gone');
  assert.deepEqual(await s3.keys(), [], 'nothing left in the bucket, under the prefix or beside it');
});

test('local: the test upload is removed from disk; the reported key names the file that was written', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t, {
    config: { ...PRIVATE_OK, destinations: { ...PRIVATE_OK.destinations, local: { allowedRoots: [root] } } },
  });
  const d = await destination(h, 'disk', 'local', {
    path: join(root, 'out'),
    publicBaseUrl: 'https://files.example/out',
    keyTemplate: 'a b/{imageId}.{ext}',
  });
  const res = await testUpload(h, d.id);
  assert.equal(res.status, 200, res.text);
  const { key, url, deleted } = res.json.data;
  assert.match(key, /^imgtask-test\/\w+\.txt$/);
  assert.equal(url, `https://files.example/out/${key}`);
  assert.equal(deleted, true);
  await assert.rejects(access(join(root, 'out', key)), { code: 'ENOENT' });
  assert.deepEqual(await readdir(join(root, 'out', 'imgtask-test')), [], 'no temporary file left either');

  const task = await generate(h, { destination: 'disk' });
  const [image] = task.result.images;
  assert.equal(image.destination.key, `a b/${image.id}.webp`);
  assert.ok((await readFile(join(root, 'out', image.destination.key))).length > 0);
  assert.equal(image.url, `https://files.example/out/a%20b/${image.id}.webp`);
});

test('http: the test upload is a PUT then a DELETE of the same URL, with the same headers; images carry Cache-Control and x-imgtask-task-id', async (t) => {
  const storage = await startHttpStorage(t, { PUT: 201, DELETE: 204 });
  const h = await startService(t, { config: PRIVATE_OK });
  const d = await destination(h, 'put', 'http', {
    urlTemplate: storage.url('/bucket/{key}'),
    headers: { authorization: 'Bearer storage-token-abcd' },
    keyTemplate: 'a b/{imageId}.{ext}',
  });
  const res = await testUpload(h, d.id);
  assert.equal(res.status, 200, res.text);
  const { key, url, deleted } = res.json.data;
  assert.match(key, /^imgtask-test\/\w+\.txt$/);
  assert.equal(url, null);
  assert.equal(deleted, true);
  assert.deepEqual(
    storage.requests.map((r) => [r.method, r.path, r.headers.authorization]),
    [
      ['PUT', `/bucket/${key}`, 'Bearer storage-token-abcd'],
      ['DELETE', `/bucket/${key}`, 'Bearer storage-token-abcd'],
    ],
  );
  assert.equal(storage.requests[1].body.length, 0);

  const task = await generate(h, { destination: 'put' });
  const [image] = task.result.images;
  const put = storage.requests[2];
  assert.equal(put.method, 'PUT');
  assert.equal(put.path, `/bucket/a%20b/${image.id}.webp`, 'the key, encoded, in the URL');
  assert.equal(image.destination.key, `a b/${image.id}.webp`);
  assert.equal(put.headers['cache-control'], 'public, max-age=86400');
  assert.equal(put.headers['x-imgtask-task-id'], task.id);
  assert.equal(storage.requests.length, 3, 'a delivered image is not deleted');
});

test('http: a storage that refuses the DELETE leaves the test a success, with deleted: false and its answer', async (t) => {
  const storage = await startHttpStorage(t, { PUT: 201, DELETE: 403 });
  const h = await startService(t, { config: PRIVATE_OK });
  const d = await destination(h, 'put', 'http', { urlTemplate: storage.url('/upload/{key}') });
  const res = await testUpload(h, d.id);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.ok, true);
  assert.equal(res.json.data.deleted, false);
  assert.match(res.json.data.deleteError, /HTTP 403/);
  assert.deepEqual(
    storage.requests.map((r) => r.method),
    ['PUT', 'DELETE'],
  );
});

test('keys with empty, "." or ".." segments are refused: URLs and folders would resolve them to another object', async (t) => {
  const h = await startService(t);
  const s3 = {
    bucket: 'images',
    endpoint: 'https://s3.example',
    accessKeyId: 'AKIAEXAMPLE',
    secretAccessKey: 'secret-1234',
  };
  for (const [config, path] of [
    [{ ...s3, keyTemplate: '/{imageId}.{ext}' }, 'keyTemplate'],
    [{ ...s3, keyTemplate: 'a//{imageId}.{ext}' }, 'keyTemplate'],
    [{ ...s3, keyTemplate: 'a/../{imageId}.{ext}' }, 'keyTemplate'],
    [{ ...s3, keyTemplate: './{imageId}.{ext}' }, 'keyTemplate'],
    [{ ...s3, keyTemplate: '{imageId}/' }, 'keyTemplate'],
    [{ ...s3, prefix: '../renders/' }, 'prefix'],
    [{ ...s3, prefix: '/renders/' }, 'prefix'],
  ] as const) {
    const res = await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'x', provider: { id: 's3' }, config },
    });
    assert.equal(res.status, 400, JSON.stringify(config));
    assert.deepEqual(res.json.errors[0].path, ['config', path], JSON.stringify(config));
  }
  assert.equal(
    (
      await h.request('POST', '/destinations', {
        auth: h.token,
        body: {
          name: 'x',
          provider: { id: 's3' },
          config: { ...s3, prefix: 'renders/', keyTemplate: 'v1.0/{imageId}.{ext}' },
        },
      })
    ).status,
    201,
  );
});
