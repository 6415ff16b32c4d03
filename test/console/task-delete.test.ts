import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';

const apiTask = async (h: Harness, id: string) =>
  (await h.request('GET', `/tasks/${id}`, { auth: h.apiKey })).json.data;

async function generated(h: Harness): Promise<{ id: string; imageUrl: string }> {
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a private lighthouse', metadata: { order: 'o-40' } },
  });
  const task = await waitForTask(h, created.json.data.taskId);
  return { id: task.id, imageUrl: task.result.images[0].service_url };
}

test('the task page has Delete…, which asks first on a page of its own; its form deletes the task, and a cross-site post changes nothing', async (t) => {
  const h = await startService(t);
  const { id, imageUrl } = await generated(h);
  const c = await consoleSignIn(h);

  const page = await c.get(`/console/tasks/${id}`);
  assert.match(page.text, new RegExp(`<a class="button danger" href="/console/tasks/${id}/delete">Delete…</a>`));
  const ask = await c.get(`/console/tasks/${id}/delete`);
  assert.equal(ask.status, 200);
  assert.match(ask.text, new RegExp(`<h1>Delete task ${id}\\?</h1>`));
  assert.match(ask.text, /its images and videos, with their poster frames/);
  assert.match(ask.text, /for up to 1 day/, 'what a cache may keep: images.cacheMaxAgeSeconds');
  assert.match(
    ask.text,
    new RegExp(
      `<form method="post" action="/console/tasks/${id}/delete" class="actions"><input type="hidden" name="_csrf"`,
    ),
  );
  assert.match(ask.text, new RegExp(`<a href="/console/tasks/${id}">Keep it</a>`));
  assert.equal((await apiTask(h, id)).dataRemoved, false, 'asking deletes nothing');

  assert.equal((await c.post(`/console/tasks/${id}/delete`, {}, { origin: 'https://evil.example' })).status, 401);
  assert.equal((await c.post(`/console/tasks/${id}/delete`, { _csrf: 'not-the-token' })).status, 401);
  assert.equal((await apiTask(h, id)).dataRemoved, false, 'neither deleted it');
  assert.equal((await fetch(imageUrl)).status, 200);

  const deleted = await c.post(`/console/tasks/${id}/delete`);
  assert.equal(deleted.status, 303);
  assert.equal(deleted.location, `/console/tasks/${id}?done=deleted`);
  assert.equal((await fetch(imageUrl)).status, 404, 'its image is gone');
  assert.equal((await apiTask(h, id)).dataRemoved, true);
  const after = await c.get(deleted.location!);
  assert.match(after.text, /class="notice ok"[^>]*>Deleted:/);
  assert.match(after.text, /<dt>Data deleted<\/dt>/);
  assert.doesNotMatch(after.text, /a private lighthouse|o-40/, 'nothing of its request or result is shown');
  assert.doesNotMatch(after.text, /Delete…|Run again/, 'nothing left to delete or to run again');
  const askAgain = await c.get(`/console/tasks/${id}/delete`);
  assert.equal(askAgain.status, 303, 'a deleted task is not asked about again');
  assert.equal(askAgain.location, `/console/tasks/${id}`);
});

test("the gallery's full view deletes its task after asking, and leads back to the gallery, where its image is gone", async (t) => {
  const h = await startService(t);
  const { id, imageUrl } = await generated(h);
  const c = await consoleSignIn(h);

  const view = await c.get(`/console/gallery/${id}/0`);
  assert.match(
    view.text,
    new RegExp(
      `<a class="button danger" href="/console/tasks/${id}/delete\\?from=gallery">Delete the task \\(all its items\\)…</a>`,
    ),
  );
  const ask = await c.get(`/console/tasks/${id}/delete?from=gallery`);
  assert.match(ask.text, /<input type="hidden" name="from" value="gallery"\/>/);
  assert.match(ask.text, /<a href="\/console\/gallery">Keep it<\/a>/);
  assert.match((await c.get('/console/gallery')).text, new RegExp(`/console/gallery/${id}/0`), 'listed before');

  const deleted = await c.post(`/console/tasks/${id}/delete`, { from: 'gallery' });
  assert.equal(deleted.status, 303);
  assert.equal(deleted.location, '/console/gallery?done=deleted');
  const gallery = await c.get(deleted.location!);
  assert.equal(gallery.status, 200);
  assert.match(gallery.text, /class="notice ok"[^>]*>Deleted:/);
  assert.doesNotMatch(gallery.text, new RegExp(`/console/gallery/${id}/0`), 'its image is no longer in the gallery');
  assert.equal((await c.get(`/console/thumbs/${id}/0?w=320`)).status, 404, 'nor its thumbnail');
  assert.equal((await c.get(`/console/gallery/${id}/0`)).status, 404);
  assert.equal((await fetch(imageUrl)).status, 404);
});

test('deleting needs the session scope tasks:cancel, as DELETE /tasks/{id} does', async (t) => {
  const h = await startService(t);
  const { id } = await generated(h);
  const { accessToken } = await h.server.services.tokens.issueAccessToken(h.accountId, ['tasks:read'], 3_600_000);
  const signIn = await fetch(`${h.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(h.url).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: accessToken }).toString(),
  });
  const reader = consoleClient(h, /imgtask_console=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]);
  await reader.get(`/console/tasks/${id}/delete`);
  const refused = await reader.post(`/console/tasks/${id}/delete`);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /<strong>INSUFFICIENT_SCOPE<\/strong>: this route needs the scope tasks:cancel/);
  assert.equal((await apiTask(h, id)).dataRemoved, false);
});
