import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { sniffImage } from '../../../src/media/images.js';
import { accountOf, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';

const LOCAL = { fetch: { allowPrivateAddresses: true } };

test('remove-background answers 201 with the estimate and a PAT, and returns an image with real alpha', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await serveFiles(t, { '/photo.jpg': await makeImage({ width: 120, height: 80, format: 'jpeg' }) });
  const res = await h.request('POST', '/image/remove-background', {
    auth: h.apiKey,
    body: { url: url('/photo.jpg'), metadata: { job: 'cutout' } },
  });
  assert.equal(res.status, 201);
  assert.equal(res.json.data.estimatedCost, '0.02');
  assert.match(res.json.data.access.publicAccessToken, /^pat_/);
  const task = await waitForTask(h, res.json.data.taskId);
  assert.equal(task.status, 'completed');
  assert.equal(task.cost, '0.02');
  const { image } = task.result;
  assert.deepEqual(Object.keys(image).sort(), ['format', 'id', 'provenance', 'service_url', 'size', 'url']);
  assert.equal(image.format, 'png', "without output.format the provider's format is kept");
  assert.equal(image.size, '120x80');
  assert.equal(image.url, image.service_url);
  const bytes = Buffer.from(await (await fetch(image.service_url)).arrayBuffer());
  const meta = await sharp(bytes).metadata();
  assert.equal(meta.hasAlpha, true);
  const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  assert.equal(data[3], 0, 'the left half is transparent');
  assert.equal(data[(120 * 40 + 100) * 4 + 3], 255, 'the right half is opaque');
  assert.equal((await accountOf(h)).balance, '99.98');
});

test('output.format webp converts and keeps the alpha', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await serveFiles(t, { '/p.png': await makeImage({ width: 60, height: 60 }) });
  const task = await waitForTask(
    h,
    (
      await h.request('POST', '/image/remove-background', {
        auth: h.token,
        body: { url: url('/p.png'), output: { format: 'webp' } },
      })
    ).json.data.taskId,
  );
  assert.equal(task.result.image.format, 'webp');
  const bytes = Buffer.from(await (await fetch(task.result.image.service_url)).arrayBuffer());
  assert.equal(sniffImage(bytes), 'webp');
  assert.equal((await sharp(bytes).metadata()).hasAlpha, true);
});

test('failures are task failures with the SPEC codes, and free', async (t) => {
  const h = await startService(t, { config: LOCAL });
  const url = await serveFiles(t, { '/broken.png': 'nope', '/w333.png': await makeImage({ width: 333, height: 20 }) });
  const cases: Array<[string, string]> = [
    [url('/broken.png'), 'INVALID_INPUT'],
    [url('/absent.png'), 'INVALID_INPUT'],
    [url('/w333.png'), 'PROVIDER_ERROR'],
  ];
  for (const [source, code] of cases) {
    const task = await waitForTask(
      h,
      (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: source } })).json.data.taskId,
    );
    assert.equal(task.status, 'failed', source);
    assert.equal(task.errors[0].code, code, source);
    assert.equal(task.result, null);
  }
  assert.equal((await accountOf(h)).balance, '100');
});

test("an uploaded image's id and its service URL are read from storage, not fetched, as for rate, alt and review", async (t) => {
  // No fetch.allowPrivateAddresses: a fetch of the loopback server would be refused, so success means storage.
  const h = await startService(t);
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 120, height: 80 }))]), 'photo.png');
  const uploaded = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  const [file] = ((await uploaded.json()) as { data: { files: { id: string; service_url: string }[] } }).data.files;
  for (const url of [file.id, file.service_url]) {
    const res = await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url } });
    assert.equal(res.status, 201, url);
    const task = await waitForTask(h, res.json.data.taskId);
    assert.equal(task.status, 'completed', url);
    assert.equal(task.request.url, url, 'the task keeps the id or URL as sent');
    assert.equal(task.result.image.size, '120x80');
    const bytes = Buffer.from(await (await fetch(task.result.image.service_url)).arrayBuffer());
    assert.equal((await sharp(bytes).metadata()).hasAlpha, true);
  }
  // A well-formed id of no stored image fails the task (free), naming the id.
  const missing = 'img_AAAAAAAAAAAAAAAAAAAAAA';
  const task = await waitForTask(
    h,
    (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: missing } })).json.data.taskId,
  );
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'INVALID_INPUT');
  assert.match(task.errors[0].message, new RegExp(`no stored image ${missing}`));
  assert.equal((await accountOf(h)).balance, '99.96');
});

test('remove-background validates: schema rejections, metadata over 2 KB, unknown destination', async (t) => {
  const h = await startService(t);
  for (const [body, path] of [
    [{}, ['url']],
    [{ url: 'ftp://example.com/a.png' }, ['url']],
    [{ url: 'not a url' }, ['url']],
    [{ url: 'img_short' }, ['url']],
    [{ url: 'https://e.com/a.png', output: { format: 'jpg' } }, ['output', 'format']],
  ] as const) {
    const res = await h.request('POST', '/image/remove-background', { auth: h.apiKey, body });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.data, body);
    assert.deepEqual(res.json.error[0].path, path);
  }
  for (const body of [
    { url: 'https://e.com/a.png', metadata: { x: 'y'.repeat(2100) } },
    { url: 'https://e.com/a.png', destination: 'missing' },
  ]) {
    const res = await h.request('POST', '/image/remove-background', { auth: h.apiKey, body });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, 'VALIDATION_ERROR');
  }
  const poor = await h.server.services.accounts.create('poor', 10_000);
  const poorKey = (await h.server.services.apiKeys.create({ accountId: poor.id })).raw;
  const res = await h.request('POST', '/image/remove-background', {
    auth: poorKey,
    body: { url: 'https://e.com/a.png' },
  });
  assert.equal(res.status, 422);
  assert.equal(res.json.code, 'INSUFFICIENT_BALANCE');
});
