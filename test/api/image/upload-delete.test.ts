import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRejectsMissingCredentials } from '../../helpers/common-auth.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { makeImage } from '../../helpers/images.js';

type Uploaded = { id: string; service_url: string; bytes: number; format: string };

async function upload(h: Harness, count: number): Promise<Uploaded[]> {
  const form = new FormData();
  for (let i = 0; i < count; i++)
    form.append('files', new Blob([new Uint8Array(await makeImage({ width: 80 + i, height: 80 }))]), `in-${i}.png`);
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { files: Uploaded[] } }).data.files;
}

const del = (h: Harness, id: string, auth: string | null = h.apiKey) =>
  h.request('DELETE', `/image/upload/${id}`, { auth });

test('an upload is recorded with its owner; DELETE /image/upload/{id} removes its file and record, and its URL answers 404', async (t) => {
  const h = await startService(t);
  const { store } = h.server.services;
  const [first, second] = await upload(h, 2);
  assert.deepEqual(await store.uploads.get(first.id), {
    id: first.id,
    accountId: h.accountId,
    apiKeyId: h.keyId,
    fileName: `${first.id}.${first.format}`,
    bytes: first.bytes,
    createdAt: (await store.uploads.get(first.id))!.createdAt,
  });

  const res = await del(h, first.id);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json, { data: { id: first.id, deleted: true } });
  const served = await fetch(first.service_url);
  assert.equal(served.status, 404);
  assert.deepEqual(await served.json(), { code: 'NOT_FOUND', message: 'no such image' });
  const tombstone = await store.uploads.get(first.id);
  assert.ok(tombstone?.deletedAt, 'the record stays as a tombstone, marked deleted');
  assert.deepEqual(
    await store.uploads.usage(h.accountId),
    { count: 1, bytes: second.bytes },
    'usage counts only the upload left',
  );
  assert.equal((await fetch(second.service_url)).status, 200, 'the other upload stays');

  const again = await del(h, first.id);
  assert.equal(again.status, 200, 'a repeat answers as the first delete did');
  assert.deepEqual(again.json, { data: { id: first.id, deleted: true } });

  // A task naming the deleted image can no longer read it.
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'p', inputs: [first.id] },
  });
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'INVALID_INPUT');
});

test("only the owner deletes an upload: another account's or an unknown id is 404, keys without image:upload and PATs are refused, the owner's access token may", async (t) => {
  const h = await startService(t);
  const { services } = h.server;
  const [image] = await upload(h, 1);

  const other = await services.accounts.create('other', 10_000_000);
  const { raw: otherKey } = await services.apiKeys.create({ accountId: other.id });
  const foreign = await del(h, image.id, otherKey);
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.code, 'NOT_FOUND');
  assert.equal((await del(h, 'img_0000000000000000000000')).status, 404);

  const { raw: readOnly } = await services.apiKeys.create({ accountId: h.accountId, scopes: ['tasks:read'] });
  const scoped = await del(h, image.id, readOnly);
  assert.equal(scoped.status, 403);
  assert.deepEqual(scoped.json.scopes.required, ['image:upload']);
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'p' } });
  assert.equal((await del(h, image.id, created.json.data.access.publicAccessToken)).status, 401, 'a PAT never deletes');
  assert.equal((await fetch(image.service_url)).status, 200, 'nothing refused removed anything');

  assert.equal((await del(h, image.id, h.token)).status, 200, "the owner's access token deletes");
  assert.equal((await fetch(image.service_url)).status, 404);
  await assertRejectsMissingCredentials(t, h, { method: 'DELETE', path: `/image/upload/${image.id}` });
});
