import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService } from '../../helpers/harness.js';

test('GET / sends a browser to the console and tells any other client where to go', async (t) => {
  const h = await startService(t);
  const browser = await fetch(`${h.url}/`, {
    headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    redirect: 'manual',
  });
  await browser.body?.cancel();
  assert.equal(browser.status, 302);
  assert.equal(browser.headers.get('location'), '/console');
  assert.match(browser.headers.get('vary') ?? '', /accept/i);
  const landed = await fetch(`${h.url}/`, { headers: { accept: 'text/html' } });
  assert.equal(new URL(landed.url).pathname.startsWith('/console'), true, `followed to ${landed.url}`);
  assert.equal(landed.status, 200, 'the console answers a page (its sign-in page)');
  await landed.body?.cancel();

  // curl's Accept (*/*), and none at all: the index, checked against its schema by the harness.
  for (const headers of [{ accept: '*/*' }, {}] as Record<string, string>[]) {
    const index = await h.request('GET', '/', { headers });
    assert.equal(index.status, 200, index.text);
    assert.match(index.headers.get('content-type') ?? '', /^application\/json/);
    const version = (await h.request('GET', '/openapi.json')).json.info.version;
    assert.deepEqual(index.json, {
      data: {
        name: 'imgtask',
        version,
        links: {
          docs: `${h.url}/docs`,
          openapi: `${h.url}/openapi.json`,
          console: `${h.url}/console`,
          health: `${h.url}/health`,
        },
      },
    });
  }
  for (const link of ['/docs', '/openapi.json', '/health'])
    assert.equal((await h.request('GET', link)).status, 200, link);

  const described = (await h.request('GET', '/openapi.json')).json.paths['/'].get;
  assert.deepEqual(
    Object.keys(described.responses).filter((s) => s.startsWith('2') || s.startsWith('3')),
    ['200', '302'],
  );
  assert.deepEqual(described.tags, ['service']);
});

test('GET / links on server.publicUrl when it is set', async (t) => {
  const h = await startService(t, { config: { publicUrl: 'https://imgtask.example.com/' } });
  const index = await h.request('GET', '/');
  assert.equal(index.json.data.links.docs, 'https://imgtask.example.com/docs');
});
