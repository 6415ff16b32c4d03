import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, makeNoisePng } from '../../helpers/images.js';

async function upload(h: Harness, files: Array<{ data: Buffer | string; name: string }>, field = 'files') {
  const form = new FormData();
  for (const file of files)
    form.append(field, new Blob([typeof file.data === 'string' ? file.data : new Uint8Array(file.data)]), file.name);
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as any };
}

test('uploads answer ids and service URLs that work as inputs and as rate, alt and remove-background URLs', async (t) => {
  const h = await startService(t);
  const res = await upload(h, [
    { data: await makeImage({ format: 'png', width: 80, height: 60 }), name: 'a.png' },
    { data: await makeImage({ format: 'jpeg', width: 128, height: 128 }), name: 'b.jpeg' },
    { data: await makeImage({ format: 'webp', width: 40, height: 90 }), name: 'c.webp' },
  ]);
  assert.equal(res.status, 201);
  const files = res.json.data.files;
  assert.deepEqual(
    files.map((f: { format: string }) => f.format),
    ['png', 'jpg', 'webp'],
  );
  assert.deepEqual(
    files.map((f: { size: string }) => f.size),
    ['80x60', '128x128', '40x90'],
  );
  for (const file of files) {
    assert.match(file.id, /^img_/);
    assert.equal(file.url, file.service_url);
    assert.match(file.service_url, new RegExp(`/images/${file.id}\\.${file.format}$`));
    assert.ok(file.bytes > 1024);
    assert.equal((await fetch(file.service_url)).status, 200);
  }
  // Read from storage, not fetched: these work although the server is on loopback and the SSRF guard is on.
  const rated = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [files[0].service_url, files[1].id] },
  });
  assert.deepEqual(
    rated.json.data.results.map((r: { status: string }) => r.status),
    ['success', 'success'],
  );
  const alt = await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [files[2].service_url] } });
  assert.equal(alt.json.data.results[0].alt, 'A 40 by 90 webp image.');
  const cut = await waitForTask(
    h,
    (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: files[0].service_url } })).json
      .data.taskId,
  );
  assert.equal(cut.status, 'completed');
  const generated = await waitForTask(
    h,
    (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p', inputs: [files[0].id] } })).json
      .data.taskId,
  );
  assert.equal(generated.result.images[0].status, 'success');
});

test('file types are sniffed from the bytes, not the name', async (t) => {
  const h = await startService(t);
  const named = await upload(h, [{ data: await makeImage({ format: 'png' }), name: 'looks-like.jpg' }]);
  assert.equal(named.status, 201);
  assert.equal(named.json.data.files[0].format, 'png');
  for (const [data, name] of [
    ['x'.repeat(4000), 'fake.png'],
    [await makeImage({ format: 'gif' }), 'anim.png'],
  ] as const) {
    const res = await upload(h, [{ data, name }]);
    assert.equal(res.status, 400, name);
    assert.equal(res.json.code, 'VALIDATION_ERROR');
  }
});

test('file count and size limits are 400 VALIDATION_ERROR, and nothing is stored', async (t) => {
  const h = await startService(t);
  const ok = await makeImage();
  const big = await makeNoisePng(2000, 1800); // about 10.8 MB
  assert.ok(big.length > 10 * 1024 * 1024, `test image is ${big.length} bytes`);
  const cases: Array<[string, Array<{ data: Buffer | string; name: string }>, RegExp, string?]> = [
    ['no files', [], /at least one file/],
    ['eleven files', Array.from({ length: 11 }, (_, i) => ({ data: ok, name: `${i}.png` })), /at most 10 files/],
    [
      'a file under 1 KB',
      [
        { data: ok, name: 'ok.png' },
        { data: ok.subarray(0, 900), name: 'tiny.png' },
      ],
      /file 2 \(tiny\.png\) is smaller than 1 KB/,
    ],
    ['a file over 10 MB', [{ data: big, name: 'big.png' }], /larger than 10 MB/],
    ['another field name', [{ data: ok, name: 'ok.png' }], /use "files"/, 'file'],
  ];
  for (const [name, files, message, field] of cases) {
    const res = await upload(h, files, field);
    assert.equal(res.status, 400, name);
    assert.equal(res.json.code, 'VALIDATION_ERROR', name);
    assert.match(res.json.message, message, name);
  }
  const plain = await h.request('POST', '/image/upload', { auth: h.apiKey, body: { files: [] } });
  assert.equal(plain.status, 400);
  assert.match(plain.json.message, /multipart\/form-data/);
  const stored = await readdir(join(h.dataDir, 'images'), { recursive: true }).catch(() => []);
  assert.deepEqual(stored, [], 'a refused upload stores none of its files, not even the valid ones');
});

test('a body over 100 MB is 413 VALIDATION_ERROR, decided without reading it whole', async (t) => {
  const h = await startService(t);
  // Declared too large: refused from the header, before a byte of the body is read.
  const declared = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${h.url}/image/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${h.apiKey}`,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(101 * 1024 * 1024),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('--x\r\n');
  });
  assert.equal(declared.status, 413);
  assert.equal(JSON.parse(declared.body).code, 'VALIDATION_ERROR');

  // Chunked, no length: counted while streaming and cut off at the bound.
  const chunk = Buffer.alloc(1024 * 1024, 97);
  const head = Buffer.from(
    '--x\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
  );
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(head);
      if (sent++ < 110) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'multipart/form-data; boundary=x' },
    body,
    duplex: 'half',
  } as RequestInit).catch((err: Error) => err);
  assert.ok(
    !(res instanceof Error),
    `the server answered instead of dropping the connection: ${res instanceof Error ? res.message : ''}`,
  );
  assert.equal((res as Response).status, 413);
});

test('upload needs an API key with image:upload; served images 404 when unknown', async (t) => {
  const h = await startService(t);
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage())]), 'a.png');
  const token = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.token}` },
    body: form,
  });
  assert.equal(token.status, 401);
  for (const path of [
    '/images/img_AAAAAAAAAAAAAAAAAAAAAA.png',
    '/images/../../etc/passwd',
    '/images/img_short.png',
    '/images/x.exe',
  ]) {
    const res = await fetch(`${h.url}${path}`);
    assert.equal(res.status, 404, path);
  }
});
