import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../helpers/console.js';
import { startService, waitForTask } from '../helpers/harness.js';

test("the gallery's full view shows the image's Content credentials: the verdict, the action, the model, seed and task", async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a signed heron', size: 'square' },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  const client = await consoleSignIn(h);
  const page = await client.get(`/console/gallery/${task.id}/0`);
  assert.equal(page.status, 200);
  const section = /<section class="credentials"[\s\S]*?<\/section>/.exec(page.text)?.[0];
  assert.ok(section, 'the full view has a credentials section');
  assert.match(section, /<h2 id="credentials-title">Content credentials<\/h2>/);
  // Signed with the local CA, which this server trusts.
  assert.match(section, /<strong>Trusted<\/strong> — Trusted: signed by /);
  assert.match(section, /created by trainedAlgorithmicMedia/);
  assert.match(section, new RegExp(`<dt>Task</dt><dd>${task.id}</dd>`));
  assert.match(section, new RegExp(`<dt>Seed</dt><dd>${task.result.images[0].seed}</dd>`));
  assert.match(section, new RegExp(`<dt>Model</dt><dd>${task.result.model}</dd>`));
});

test('the full view of an image stored without credentials says so, and the page still renders', async (t) => {
  const h = await startService(t, { config: { provenance: { enabled: false } } });
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'an unsigned heron', size: 'square' },
  });
  const task = await waitForTask(h, created.json.data.taskId);
  const client = await consoleSignIn(h);
  const page = await client.get(`/console/gallery/${task.id}/0`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<strong>None<\/strong> — no Content Credentials/);
});
