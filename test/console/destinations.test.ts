import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { type Harness, startService } from '../helpers/harness.js';

const s3Config = {
  bucket: 'images',
  region: 'eu-west-1',
  endpoint: 'https://s3.example',
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'very-secret-value-1234',
};

/** A folder under the data dir's exports/ folder: local destinations may always write there. */
async function exportsFolder(h: Harness, name: string): Promise<string> {
  const path = join(h.dataDir, 'exports', name);
  await mkdir(join(h.dataDir, 'exports'), { recursive: true });
  return path;
}

/** Adds a destination from the console; answers its id. */
async function addDestination(c: ConsoleClient, name: string, provider: string, config: object): Promise<string> {
  const res = await c.post('/console/destinations', { name, provider, config: JSON.stringify(config) });
  assert.equal(res.status, 303, res.text);
  const id = /^\/console\/destinations\/(dst_[^?]+)\?done=created$/.exec(res.location ?? '')?.[1];
  assert.ok(id, `redirected to the new destination (${res.location})`);
  return id;
}

test('a local destination is added, listed, test-uploaded and edited', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const path = await exportsFolder(h, 'console');
  const id = await addDestination(c, 'exports', 'local', { path });
  const created = await c.get(`/console/destinations/${id}?done=created`);
  assert.match(created.text, /The destination was added/);

  const list = await c.get('/console/destinations');
  const row = list.text.split(`<tr id="destination-${id}">`)[1]?.split('</tr>')[0] ?? '';
  assert.match(row, />exports<\/a>/);
  assert.match(row, /Local folder \(local\)/);
  assert.match(row, /<time datetime=/);

  const tested = await c.post(`/console/destinations/${id}/test`);
  assert.equal(tested.status, 200);
  assert.match(
    tested.text,
    /class="notice ok"[^>]*>Test upload written: key imgtask-test\/[0-9A-Za-z]+\.txt\. The test object was deleted afterwards\./,
  );

  const saved = await c.post(`/console/destinations/${id}`, {
    name: 'renamed',
    config: JSON.stringify({ path, keyTemplate: 'gen/{imageId}.{ext}' }),
  });
  assert.equal(saved.status, 303);
  assert.equal(saved.location, `/console/destinations/${id}?done=saved`);
  const api = (await h.request('GET', `/destinations/${id}`, { auth: h.token })).json.data;
  assert.equal(api.name, 'renamed');
  assert.equal(api.config.keyTemplate, 'gen/{imageId}.{ext}');
  assert.match((await c.get(saved.location)).text, /Saved\./);
});

test("a failed test upload shows the storage's message as text with 502 DESTINATION_TEST_FAILED", async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  // A file where the folder should be: the storage cannot create the test object's folder.
  const path = await exportsFolder(h, 'blocked');
  await writeFile(path, 'not a folder');
  const id = await addDestination(c, 'blocked', 'local', { path });
  const res = await c.post(`/console/destinations/${id}/test`);
  assert.equal(res.status, 502);
  assert.match(res.text, /class="notice error"[\s\S]*DESTINATION_TEST_FAILED<\/strong>: [^<]+/);
  assert.doesNotMatch(res.text, /Test upload written/);
});

test('a name already taken is refused with DESTINATION_NAME_TAKEN (409), keeping what was typed', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  await addDestination(c, 'archive', 's3', s3Config);
  const again = await c.post('/console/destinations', {
    name: 'archive',
    provider: 's3',
    config: JSON.stringify({ ...s3Config, bucket: 'second' }),
  });
  assert.equal(again.status, 409);
  assert.match(again.text, /class="notice error"[\s\S]*DESTINATION_NAME_TAKEN/);
  assert.match(again.text, /id="dst-name" name="name"[^>]*value="archive"/);
  assert.match(again.text, /&quot;bucket&quot;:&quot;second&quot;/, 'the config typed is kept');
  assert.match(again.text, /<option value="s3" selected/);
  assert.equal((await h.request('GET', '/destinations', { auth: h.token })).json.data.length, 1);
});

test("secrets are shown as the service's masked view; sending the mask back keeps them", async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const id = await addDestination(c, 'archive', 's3', s3Config);
  const page = await c.get(`/console/destinations/${id}`);
  assert.equal(page.text.includes('very-secret-value'), false);
  assert.match(page.text, /\*\*\*\*1234/);
  // The edit form's config is the masked view: submitted as it is, the stored secret stays.
  const config = /<textarea id="dst-config"[^>]*>([^<]*)<\/textarea>/.exec(page.text)?.[1] ?? '';
  const unescaped = config.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  assert.equal(JSON.parse(unescaped).secretAccessKey, '****1234');
  const saved = await c.post(`/console/destinations/${id}`, {
    name: 'archive',
    config: unescaped.replace('"eu-west-1"', '"eu-west-2"'),
  });
  assert.equal(saved.status, 303);
  const stored = await h.server.services.store.destinations.get(id);
  assert.ok(stored?.sealedSecrets, 'the secret is still stored');
  assert.equal(
    (await h.request('GET', `/destinations/${id}`, { auth: h.token })).json.data.config.secretAccessKey,
    '****1234',
  );
  assert.equal((await h.request('GET', `/destinations/${id}`, { auth: h.token })).json.data.config.region, 'eu-west-2');
});

test('a refused config (not JSON, or not the schema) is shown again with the reason as text (400)', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const notJson = await c.post('/console/destinations', { name: 'x', provider: 's3', config: '{not json' });
  assert.equal(notJson.status, 400);
  assert.match(notJson.text, /Config: not JSON/);
  assert.match(notJson.text, />\{not json<\/textarea>/);
  const noBucket = await c.post('/console/destinations', {
    name: 'x',
    provider: 's3',
    config: JSON.stringify({ ...s3Config, bucket: undefined }),
  });
  assert.equal(noBucket.status, 400);
  assert.match(noBucket.text, /Config bucket: /);
  const outside = await c.post('/console/destinations', {
    name: 'x',
    provider: 'local',
    config: JSON.stringify({ path: '/etc' }),
  });
  assert.equal(outside.status, 400);
  assert.match(
    outside.text,
    /VALIDATION_ERROR<\/strong>: config\.path must lie under the data dir&#39;s exports folder/,
  );
  const markup = await c.post('/console/destinations', {
    name: '<img src=x onerror=alert(1)>',
    provider: 'local',
    config: '{}',
  });
  assert.equal(markup.status, 400);
  assert.equal(markup.text.includes('<img src=x'), false, 'what was typed is shown as text');
  assert.deepEqual((await h.request('GET', '/destinations', { auth: h.token })).json.data, []);
});

test('deleting a destination removes it; with none left the page says what to do next', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const id = await addDestination(c, 'archive', 's3', s3Config);
  const res = await c.post(`/console/destinations/${id}/delete`);
  assert.equal(res.status, 303);
  assert.equal(res.location, '/console/destinations?done=deleted');
  assert.equal((await h.request('GET', `/destinations/${id}`, { auth: h.token })).status, 404);
  const page = await c.get(res.location);
  assert.match(page.text, /The destination was deleted/);
  assert.match(page.text, /No destinations yet/);
});

test("another account's destination answers 404 on its page and every action", async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const theirs = await h.server.services.destinations.create(other.id, {
    name: 'theirs',
    provider: { id: 's3' },
    config: s3Config,
  });
  const c = await consoleSignIn(h);
  assert.equal((await c.get(`/console/destinations/${theirs.id}`)).status, 404);
  for (const path of ['', '/test', '/delete']) {
    const res = await c.post(`/console/destinations/${theirs.id}${path}`, { name: 'mine', config: '{}' });
    assert.equal(res.status, 404, path);
    assert.match(res.text, /does not exist, or it is not yours/);
  }
  assert.equal((await h.server.services.destinations.get(other.id, theirs.id)).name, 'theirs');
});

test('a cross-site post (a foreign Origin, or none) adds no destination', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const fields = { name: 'forged', provider: 's3', config: JSON.stringify(s3Config) };
  assert.equal((await c.post('/console/destinations', fields, { origin: 'https://evil.example' })).status, 401);
  const none = await fetch(`${h.url}/console/destinations`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `imgtask_console=${c.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: c.csrf, ...fields }).toString(),
  });
  assert.equal(none.status, 401);
  assert.deepEqual((await h.request('GET', '/destinations', { auth: h.token })).json.data, []);
});
