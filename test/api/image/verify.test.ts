import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTestChain } from '../../helpers/c2pa-certs.js';
import { signWithChain, tamperPng } from '../../helpers/c2pa-sign.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';
import { tempDir } from '../../helpers/temp-dir.js';

const LOCAL = { fetch: { allowPrivateAddresses: true } };
const ORIGIN = { model: 'test-model', seed: 42, taskId: 'tsk_fixture' };

async function upload(h: Harness, data: Buffer, auth = h.apiKey): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(data)]), 'image.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}` },
    body: form,
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { data: { files: { id: string }[] } }).data.files[0].id;
}

test('a signed image reads Valid with its manifest; Trusted once its CA is a trust anchor; one changed byte reads Invalid; a plain image has none', async (t) => {
  const chain = await makeTestChain({ commonName: 'verify test signer' });
  const plain = await makeImage({ width: 96, height: 64 });
  const signed = await signWithChain(chain, plain, 'image/png', ORIGIN);
  const url = await serveFiles(t, {
    '/signed.png': signed,
    '/tampered.png': tamperPng(signed),
    '/plain.png': plain,
    '/text.txt': 'not an image at all',
  });

  const h = await startService(t, { config: LOCAL });
  const valid = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: url('/signed.png') } });
  assert.equal(valid.status, 200, valid.text);
  const report = valid.json.data;
  assert.equal(report.present, true);
  assert.equal(report.validation, 'Valid', 'a CA this server does not know: intact, not trusted');
  assert.equal(report.signer.commonName, 'verify test signer');
  assert.deepEqual(
    report.actions.map((a: { action: string; digitalSourceType?: string }) => [a.action, a.digitalSourceType]),
    [['c2pa.created', 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia']],
  );
  assert.deepEqual({ model: report.imgtask.model, seed: report.imgtask.seed, taskId: report.imgtask.taskId }, ORIGIN);

  const tampered = await h.request('POST', '/image/verify', { auth: h.token, body: { url: url('/tampered.png') } });
  assert.equal(tampered.status, 200, tampered.text);
  assert.equal(tampered.json.data.validation, 'Invalid');
  assert.ok(
    tampered.json.data.failures.some((f: { code: string }) => /dataHash\.mismatch/.test(f.code)),
    `a data hash failure among ${JSON.stringify(tampered.json.data.failures)}`,
  );

  const none = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: url('/plain.png') } });
  assert.equal(none.status, 200, none.text);
  assert.deepEqual(none.json.data, { present: false });

  const text = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: url('/text.txt') } });
  assert.equal(text.status, 400);
  assert.equal(text.json.code, 'VALIDATION_ERROR');
  assert.match(text.json.message, /not an image or video/);

  const missing = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: url('/gone.png') } });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'VALIDATION_ERROR');
  assert.match(missing.json.message, /could not be fetched: .*HTTP 404/);

  // The same bytes sent as the body (imgtask verify FILE): the same report, nothing stored.
  const sent = await fetch(`${h.url}/image/verify/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: new Uint8Array(signed),
  });
  assert.equal(sent.status, 200);
  assert.deepEqual(((await sent.json()) as { data: unknown }).data, report);

  // With the test CA as a trust anchor, the same file is Trusted.
  const dir = await tempDir(t);
  const anchors = join(dir, 'anchors.pem');
  await writeFile(anchors, chain.caPem);
  const trusting = await startService(t, { config: { ...LOCAL, provenance: { trustAnchors: { file: anchors } } } });
  const trusted = await trusting.request('POST', '/image/verify', {
    auth: trusting.apiKey,
    body: { url: url('/signed.png') },
  });
  assert.equal(trusted.status, 200, trusted.text);
  assert.equal(trusted.json.data.validation, 'Trusted');
});

test('an id reads the caller’s upload from storage; another account’s upload or an unknown id is 404', async (t) => {
  const chain = await makeTestChain();
  const signed = await signWithChain(chain, await makeImage({ width: 80, height: 80 }), 'image/png', ORIGIN);
  const h = await startService(t);
  const id = await upload(h, signed);
  const own = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { id } });
  assert.equal(own.status, 200, own.text);
  assert.equal(own.json.data.validation, 'Valid');
  assert.equal(own.json.data.imgtask.seed, 42);

  const other = await h.server.services.accounts.create('other', 1_000_000);
  const { raw } = await h.server.services.apiKeys.create({ accountId: other.id, name: 'other' });
  const foreign = await h.request('POST', '/image/verify', { auth: raw, body: { id } });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.code, 'NOT_FOUND');
  const unknown = await h.request('POST', '/image/verify', {
    auth: h.apiKey,
    body: { id: 'img_0000000000000000000000' },
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, 'NOT_FOUND');
});

test('an id reads a made image too (its id is the capability, as for GET /images): its credentials name its task; a removed output is 404', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dawn', seed: 7, output: { format: 'png' } },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId, 30_000);
  const [item] = (task.result as { images: { id: string }[] }).images;
  const made = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { id: item.id } });
  assert.equal(made.status, 200, made.text);
  assert.equal(made.json.data.present, true);
  assert.equal(made.json.data.imgtask.taskId, task.id);
  assert.equal(made.json.data.imgtask.seed, 7);

  assert.equal((await h.request('DELETE', `/tasks/${task.id}`, { auth: h.apiKey })).status, 200);
  const removed = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { id: item.id } });
  assert.equal(removed.status, 404, removed.text);
  assert.equal(removed.json.code, 'NOT_FOUND');
});

test('verify URLs go through the SSRF guard; the body takes exactly one of url and id; a PAT or no credential is refused', async (t) => {
  const h = await startService(t);
  const url = await serveFiles(t, { '/plain.png': await makeImage() });
  const loopback = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: url('/plain.png') } });
  assert.equal(loopback.status, 400, 'a loopback address is refused unless fetch.allowPrivateAddresses is on');
  assert.equal(loopback.json.code, 'VALIDATION_ERROR');
  assert.match(loopback.json.message, /could not be fetched: .*127\.0\.0\.1.*fetch\.allowPrivateAddresses/);
  const metadata = await h.request('POST', '/image/verify', {
    auth: h.apiKey,
    body: { url: 'http://169.254.169.254/latest/meta-data' },
  });
  assert.equal(metadata.status, 400);
  assert.match(metadata.json.message, /cloud metadata address/);

  for (const body of [{}, { url: 'https://example.com/a.png', id: 'img_0000000000000000000000' }]) {
    const res = await h.request('POST', '/image/verify', { auth: h.apiKey, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual(res.json, { code: 'VALIDATION_ERROR', message: 'send exactly one of url and id' });
  }
  const schema = await h.request('POST', '/image/verify', { auth: h.apiKey, body: { url: 'ftp://example.com/a.png' } });
  assert.equal(schema.status, 400);
  assert.equal(schema.json.success, false, 'a URL that is no http(s) URL fails the schema');

  const anonymous = await h.request('POST', '/image/verify', {
    auth: null,
    body: { url: 'https://example.com/a.png' },
  });
  assert.equal(anonymous.status, 401);
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a pat' } });
  const pat = created.json.data.access.publicAccessToken;
  const byPat = await h.request('POST', '/image/verify', { auth: pat, body: { url: 'https://example.com/a.png' } });
  assert.equal(byPat.status, 401);
});

test('a key with none of the image scopes may verify (free, reads only what it is given)', async (t) => {
  const h = await startService(t);
  const { raw } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: 'tasks only',
    scopes: ['tasks:read'],
  });
  const sent = await fetch(`${h.url}/image/verify/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}` },
    body: new Uint8Array(await makeImage()),
  });
  assert.equal(sent.status, 200);
  assert.deepEqual(await sent.json(), { data: { present: false } });
  const empty = await fetch(`${h.url}/image/verify/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}` },
  });
  assert.equal(empty.status, 400);
});
