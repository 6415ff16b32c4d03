import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { type ConsoleClient, consoleSignIn } from '../helpers/console.js';
import { eventually, type Harness, startService, waitForTask } from '../helpers/harness.js';
import { ManualClock } from '../helpers/manual-clock.js';

/** A second model on the placeholder provider, for the model filter. */
const TWO_MODELS = {
  models: {
    second: {
      provider: 'placeholder',
      price: { perImage: '0.001', perInput: '0' },
      capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true },
    },
  },
};

/** Generates and waits; answers the settled task (as GET /tasks/{id} shows it). */
async function generate(h: Harness, body: Record<string, unknown>, auth = h.apiKey): Promise<any> {
  const res = await h.request('POST', '/image/generate', { auth, body: { size: 'square', ...body } });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId);
}

/** The gallery items a page links to, in order: `taskId/index`. */
const tilesOf = (html: string): string[] =>
  [...html.matchAll(/<li class="tile"><a href="\/console\/gallery\/(tsk_[0-9A-Za-z]+\/\d+)"/g)].map((m) => m[1]);
const olderLink = (html: string): string | null => {
  const href = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(html)?.[1];
  return href ? href.replaceAll('&amp;', '&') : null;
};

/** A thumbnail with the client's session cookie: the raw answer (bytes). */
const thumb = (h: Harness, client: ConsoleClient, path: string, headers: Record<string, string> = {}) =>
  fetch(`${h.url}${path}`, { redirect: 'manual', headers: { cookie: `imgtask_console=${client.cookie}`, ...headers } });

test('with no images the gallery says so and links to the Playground', async (t) => {
  const h = await startService(t);
  const client = await consoleSignIn(h);
  const page = await client.get('/console/gallery');
  assert.equal(page.status, 200);
  assert.match(page.text, /No images yet/);
  assert.match(page.text, /<a href="\/console\/playground">/);
  assert.doesNotMatch(page.text, /class="tile"/);
});

test('generated images show newest first as lazy thumbnails with size, alt and srcset, never the full image', async (t) => {
  const h = await startService(t);
  const first = await generate(h, { prompt: 'a red kite over the dunes', count: 2 });
  const second = await generate(h, { prompt: 'a lighthouse at dawn' });
  const client = await consoleSignIn(h);
  const page = await client.get('/console/gallery');
  assert.equal(page.status, 200);
  assert.deepEqual(tilesOf(page.text), [`${second.id}/0`, `${first.id}/0`, `${first.id}/1`]);
  const img = /<img [^>]*alt="a lighthouse at dawn"[^>]*>/.exec(page.text)?.[0];
  assert.ok(img, 'the tile carries the prompt as its alt text');
  assert.match(img, new RegExp(`src="/console/thumbs/${second.id}/0\\?w=320"`));
  assert.match(
    img,
    new RegExp(
      `srcset="/console/thumbs/${second.id}/0\\?w=160 160w, /console/thumbs/${second.id}/0\\?w=320 320w, /console/thumbs/${second.id}/0\\?w=640 640w"`,
    ),
  );
  assert.match(img, /width="320"/);
  assert.match(img, /height="320"/);
  assert.match(img, /loading="lazy"/);
  assert.doesNotMatch(page.text, /\/images\/img_/, 'the grid never links the full image');
  // Each thumbnail the page names answers an image.
  for (const [, src] of page.text.matchAll(/src="(\/console\/thumbs\/[^"]+)"/g)) {
    const res = await thumb(h, client, src.replaceAll('&amp;', '&'));
    assert.equal(res.status, 200, src);
    assert.equal(res.headers.get('content-type'), 'image/webp');
  }
});

test('a thumbnail is webp at the asked width, resized once, cached privately for images.cacheMaxAgeSeconds (not immutable) under an ETag answered 304', async (t) => {
  const h = await startService(t);
  const task = await generate(h, { prompt: 'a fox in the snow' });
  const client = await consoleSignIn(h);
  for (const width of [160, 320, 640]) {
    const res = await thumb(h, client, `/console/thumbs/${task.id}/0?w=${width}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/webp');
    assert.equal(res.headers.get('cache-control'), 'private, max-age=86400');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, width, `the 1024-pixel image is scaled to ${width}`);
    assert.equal(meta.height, width);
  }
  const cold = await thumb(h, client, `/console/thumbs/${task.id}/0?w=1280`);
  assert.equal(cold.headers.get('x-thumbnail'), 'resized');
  assert.equal((await sharp(Buffer.from(await cold.arrayBuffer())).metadata()).width, 1024, 'never scaled up');
  const warm = await thumb(h, client, `/console/thumbs/${task.id}/0?w=320`);
  assert.equal(warm.headers.get('x-thumbnail'), 'cached', 'a second view is served from memory');
  const etag = warm.headers.get('etag');
  assert.equal(etag, `"${task.result.images[0].id}.w320.v1"`);
  const notModified = await thumb(h, client, `/console/thumbs/${task.id}/0?w=320`, { 'if-none-match': etag! });
  assert.equal(notModified.status, 304);
  assert.equal(await notModified.text(), '');
  assert.notEqual(
    (await thumb(h, client, `/console/thumbs/${task.id}/0?w=640`)).headers.get('etag'),
    etag,
    'each width has its own ETag',
  );

  for (const bad of ['?w=100', '?w=abc', ''])
    assert.equal(
      (await thumb(h, client, `/console/thumbs/${task.id}/0${bad}`)).status,
      400,
      `width ${bad || 'missing'}`,
    );
  for (const index of ['1', 'x', '-1'])
    assert.equal((await thumb(h, client, `/console/thumbs/${task.id}/${index}?w=320`)).status, 404, `index ${index}`);
  assert.equal((await thumb(h, client, `/console/thumbs/tsk_0000000000000000000000000/0?w=320`)).status, 404);
  const noSession = await fetch(`${h.url}/console/thumbs/${task.id}/0?w=320`, { redirect: 'manual' });
  assert.equal(noSession.status, 303, 'a thumbnail needs a session');
});

test("another account's image answers not found: thumbnail, full view and a page cursor", async (t) => {
  const h = await startService(t);
  const mine = await generate(h, { prompt: 'mine' });
  const other = await h.server.services.accounts.create('other', 10_000_000);
  const { raw } = await h.server.services.apiKeys.create({ accountId: other.id, name: 'other' });
  const created = await h.request('POST', '/image/generate', {
    auth: raw,
    body: { prompt: 'theirs, secret', size: 'square' },
  });
  const theirs = { id: created.json.data.taskId as string };
  await eventually(
    async () => (await h.request('GET', `/tasks/${theirs.id}`, { auth: raw })).json.data.status === 'completed',
    10_000,
  );
  const client = await consoleSignIn(h);
  const page = await client.get('/console/gallery');
  assert.deepEqual(tilesOf(page.text), [`${mine.id}/0`]);
  assert.doesNotMatch(page.text, /theirs, secret/);
  assert.equal((await thumb(h, client, `/console/thumbs/${theirs.id}/0?w=320`)).status, 404);
  const full = await client.get(`/console/gallery/${theirs.id}/0`);
  assert.equal(full.status, 404);
  assert.doesNotMatch(full.text, /theirs, secret/);
  assert.equal((await client.get(`/console/gallery?cursor=${theirs.id}.0`)).status, 404);
  // Their own view of it works.
  const theirClient = await consoleSignIn(h, { account: 'other' });
  assert.equal((await theirClient.get(`/console/gallery/${theirs.id}/0`)).status, 200);
});

test('filters by model, rating level, key and date narrow the grid', async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  const h = await startService(t, { clock, config: TWO_MODELS });
  const { apiKey: otherKey, raw: otherRaw } = await h.server.services.apiKeys.create({
    accountId: h.accountId,
    name: 'second key',
  });
  const early = await generate(h, { prompt: 'early placeholder', rating: true });
  clock.advance(3 * 86_400_000);
  const late = await generate(h, { prompt: 'late second model', model: 'second' }, otherRaw);
  const client = await consoleSignIn(h);
  const all = tilesOf((await client.get('/console/gallery')).text);
  assert.deepEqual(all, [`${late.id}/0`, `${early.id}/0`]);

  const level = early.result.images[0].rating.level;
  assert.ok(['sfw', 'nsfw'].includes(level));
  const cases: [string, string[]][] = [
    ['model=second', [`${late.id}/0`]],
    ['model=placeholder', [`${early.id}/0`]],
    [`rating=${level}`, [`${early.id}/0`]],
    [`rating=${level === 'sfw' ? 'nsfw' : 'sfw'}`, []],
    [`key=${otherKey.id}`, [`${late.id}/0`]],
    [`key=${h.keyId}`, [`${early.id}/0`]],
    ['from=2026-11-24', [`${late.id}/0`]],
    ['to=2026-11-23', [`${early.id}/0`]],
    ['from=2026-11-22&to=2026-11-25', all],
    ['from=2026-11-26', []],
  ];
  for (const [query, expected] of cases) {
    const page = await client.get(`/console/gallery?${query}`);
    assert.equal(page.status, 200, query);
    assert.deepEqual(tilesOf(page.text), expected, query);
    if (expected.length === 0) assert.match(page.text, /No image matches these filters/, query);
  }
  const filtered = await client.get(`/console/gallery?model=second&key=${otherKey.id}`);
  assert.match(
    filtered.text,
    /<option value="second" selected="">second<\/option>/,
    'the form keeps the chosen filters',
  );
  assert.match((await client.get(`/console/gallery?rating=${level}`)).text, new RegExp(`Rating: ${level}`));
  const bad = await client.get('/console/gallery?from=yesterday');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /From: a date as YYYY-MM-DD/);
  assert.match(bad.text, /value="yesterday"/, 'the refused form keeps what was typed');
});

test('paging with a small page size walks every image once, newest first, resuming inside a task', async (t) => {
  const h = await startService(t);
  const a = await generate(h, { prompt: 'a', count: 3 });
  const b = await generate(h, { prompt: 'b' });
  const c = await generate(h, { prompt: 'c', count: 2 });
  const client = await consoleSignIn(h);
  const expected = [`${c.id}/0`, `${c.id}/1`, `${b.id}/0`, `${a.id}/0`, `${a.id}/1`, `${a.id}/2`];
  const seen: string[][] = [];
  let path: string | null = '/console/gallery?per=2';
  while (path) {
    const page = await client.get(path);
    assert.equal(page.status, 200, path);
    seen.push(tilesOf(page.text));
    path = olderLink(page.text);
    if (seen.length > 1) assert.match(page.text, /<a href="\/console\/gallery\?per=2">Newest<\/a>/);
    assert.ok(seen.length <= 4, 'paging ends');
  }
  assert.deepEqual(seen.flat(), expected);
  assert.ok(
    seen.every((tiles) => tiles.length === 2),
    JSON.stringify(seen),
  );
  assert.equal((await client.get('/console/gallery?cursor=nonsense')).status, 400);
  assert.equal((await client.get('/console/gallery?per=1000')).status, 400);
});

test('prompts and metadata with markup show as text in the full view and the alt text; download is the image’s own path', async (t) => {
  const h = await startService(t, { config: TWO_MODELS });
  const payload = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';
  const task = await generate(h, {
    prompt: `${payload} a harbour`,
    negative_prompt: 'blurry <b>',
    model: 'second',
    seed: 42,
    metadata: { note: payload, nested: { '<i>': 'x' } },
  });
  const image = task.result.images[0];
  const file = new URL(image.service_url).pathname.split('/').pop();
  const client = await consoleSignIn(h);
  const grid = await client.get('/console/gallery');
  assert.doesNotMatch(grid.text, /<script>alert/);
  assert.match(
    grid.text,
    /alt="&lt;script&gt;alert\(1\)&lt;\/script&gt;&lt;img src=x onerror=alert\(2\)&gt;&quot;&#39; a harbour"/,
  );

  const full = await client.get(`/console/gallery/${task.id}/0`);
  assert.equal(full.status, 200);
  assert.doesNotMatch(full.text, /<script>alert/);
  assert.doesNotMatch(full.text, /<img src=x/);
  assert.match(full.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(
    full.text,
    /<pre>\{\n {2}&quot;note&quot;: &quot;&lt;script&gt;alert\(1\)/,
    'metadata is JSON text in a <pre>',
  );
  assert.match(full.text, /blurry &lt;b&gt;/);
  assert.match(full.text, new RegExp(`<a class="button" download="${file}" href="/images/${file}">Download</a>`));
  assert.match(full.text, new RegExp(`<a href="/console/tasks/${task.id}">`));
  assert.match(full.text, /second/);
  assert.match(full.text, /1024 × 1024/);
  assert.match(full.text, /<dd>42<\/dd>/, 'the seed');
  assert.match(
    full.text,
    new RegExp(`srcset="/console/thumbs/${task.id}/0\\?w=640 640w, /console/thumbs/${task.id}/0\\?w=1280 1280w"`),
  );
  const original = await fetch(`${h.url}/images/${file}`);
  assert.equal(original.status, 200, 'the download link is served by this server');
  assert.equal((await client.get(`/console/gallery/${task.id}/7`)).status, 404);
});

test('a review of an image shows its verdict in the grid and the full view; cut-outs show too', async (t) => {
  const h = await startService(t);
  const task = await generate(h, { prompt: 'a reviewed image' });
  const image = task.result.images[0];
  const reviewed = await h.request('POST', '/image/review', { auth: h.apiKey, body: { url: image.service_url } });
  assert.equal(reviewed.status, 200, reviewed.text);
  const verdict = reviewed.json.data.result.verdict;
  const cutout = await waitForTask(
    h,
    (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: image.id } })).json.data.taskId,
  );
  assert.equal(cutout.status, 'completed');
  const client = await consoleSignIn(h);
  const grid = await client.get('/console/gallery');
  assert.deepEqual(tilesOf(grid.text), [`${cutout.id}/0`, `${task.id}/0`]);
  assert.match(grid.text, new RegExp(`Review: ${verdict}`));
  assert.match((await client.get(`/console/gallery/${task.id}/0`)).text, new RegExp(`Review: ${verdict}`));
  const cut = await thumb(h, client, `/console/thumbs/${cutout.id}/0?w=160`);
  assert.equal(cut.status, 200);
  assert.equal(
    (await sharp(Buffer.from(await cut.arrayBuffer())).metadata()).hasAlpha,
    true,
    'the cut-out keeps its transparency',
  );
});

test('a cut-out shows on a checkerboard with a caption saying what it is, in the grid and the full view', async (t) => {
  const h = await startService(t);
  const source = (await generate(h, { prompt: 'a product shot' })).result.images[0];
  const cutout = await waitForTask(
    h,
    (await h.request('POST', '/image/remove-background', { auth: h.apiKey, body: { url: source.id } })).json.data
      .taskId,
  );
  const ext = cutout.result.image.service_url.split('.').pop().toUpperCase();
  const client = await consoleSignIn(h);
  const grid = await client.get('/console/gallery');
  const tile = /<li class="tile"><a href="\/console\/gallery\/tsk_[^/]+\/0">[\s\S]*?<\/li>/.exec(grid.text)?.[0] ?? '';
  assert.ok(tile.includes(`/console/gallery/${cutout.id}/0`), 'the newest tile is the cut-out');
  assert.match(tile, /<img [^>]* class="checker"\/>/, 'a checkerboard behind it');
  assert.match(tile, new RegExp(`<p class="tile-meta"><span>Background removed, transparent ${ext}</span>`));
  const photo = /<li class="tile">[\s\S]*?<\/li>/g;
  const tiles = grid.text.match(photo) ?? [];
  assert.equal(tiles.length, 2);
  assert.doesNotMatch(tiles[1], /checker/, 'a generated image has no checkerboard');
  const full = await client.get(`/console/gallery/${cutout.id}/0`);
  assert.match(full.text, /<img [^>]*class="checker"\/>/);
  assert.match(full.text, new RegExp(`<figcaption>Background removed, transparent ${ext}</figcaption>`));
  assert.match(full.text, /\(image\.remove_background, item 1, /, 'numbered from 1, as the CLI numbers items');
});
