import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startService } from '../../helpers/harness.js';

const STANDALONE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

/** A GET over node:http, which hands back the bytes as sent (fetch would undo the gzip). */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const attribute = (html: string, name: string): string => {
  const match = new RegExp(`${name}="([^"]*)"`).exec(html);
  assert.ok(match, `no ${name} attribute`);
  return match[1].replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
};

test('GET /docs is a page that loads the renderer and the description from this server only, under a strict CSP', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/docs', { auth: null });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.doesNotMatch(res.text, /(src|href|data-url)="(https?:)?\/\//i, 'nothing named on another host');
  assert.match(res.text, /<title>imgtask API reference<\/title>/);

  const csp = res.headers.get('content-security-policy') ?? '';
  const directives = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );
  assert.deepEqual(directives['default-src'], ["'none'"]);
  assert.deepEqual(directives['script-src'], ["'self'"], 'no inline script, no eval');
  assert.deepEqual(directives['connect-src'], ["'self'"]);
  assert.deepEqual(directives['font-src'], ["'self'", 'data:']);

  // The renderer's script is ours, named with its digest; the description is the one this server serves.
  const src = /<script src="([^"]+)"><\/script>/.exec(res.text)?.[1];
  assert.match(src ?? '', /^docs\/scalar\.js\?v=[\w-]{22}$/);
  const script = await rawGet(new URL(src!, `${h.url}/docs`).href);
  assert.equal(script.status, 200);
  assert.equal(
    script.headers['cache-control'],
    'public, max-age=31536000, immutable',
    'under its digest the URL is immutable',
  );
  assert.equal(new URL(attribute(res.text, 'data-url'), `${h.url}/docs`).href, `${h.url}/openapi.json`);

  const configuration = JSON.parse(attribute(res.text, 'data-configuration'));
  assert.equal(configuration.withDefaultFonts, false, 'no web fonts from the vendor');
  assert.equal(configuration.telemetry, false);
  assert.equal(configuration.hideClientButton, true);
  assert.equal(configuration.showDeveloperTools, 'never');
  assert.deepEqual(configuration.agent, { disabled: true });
  assert.equal('proxyUrl' in configuration || 'proxy' in configuration, false, 'no request proxy');
});

test('GET /docs lets the reference try requests against publicUrl when it names another origin', async (t) => {
  const h = await startService(t, { config: { publicUrl: 'https://images.example.test:8443/api' } });
  const res = await h.request('GET', '/docs', { auth: null });
  assert.match(
    res.headers.get('content-security-policy') ?? '',
    /connect-src 'self' https:\/\/images\.example\.test:8443;/,
  );
});

test('GET /docs/scalar.js serves the installed bundle: gzipped when accepted, strong ETags per encoding, 304 on a match', async (t) => {
  const h = await startService(t);
  const file = await readFile(STANDALONE);

  const plain = await rawGet(`${h.url}/docs/scalar.js`);
  assert.equal(plain.status, 200);
  assert.match(String(plain.headers['content-type']), /^text\/javascript/);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.ok(plain.body.equals(file), 'the very file of the installed package');
  assert.equal(plain.headers['content-length'], String(file.length));
  assert.equal(plain.headers['cache-control'], 'no-cache', 'a bare URL is revalidated');
  assert.equal(plain.headers.vary, 'Accept-Encoding');
  const etag = String(plain.headers.etag);
  assert.match(etag, /^"[\w-]+"$/, 'a strong ETag');

  const zipped = await rawGet(`${h.url}/docs/scalar.js`, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(zipped.body).equals(file));
  assert.ok(zipped.body.length < file.length / 2, `gzip ${zipped.body.length} of ${file.length} bytes`);
  assert.notEqual(zipped.headers.etag, etag, 'other bytes, other ETag');

  const refused = await rawGet(`${h.url}/docs/scalar.js`, { 'accept-encoding': 'gzip;q=0, identity' });
  assert.equal(refused.headers['content-encoding'], undefined, 'q=0 refuses gzip');

  for (const tag of [etag, String(zipped.headers.etag), `W/${etag}`, `"other", ${etag}`]) {
    const again = await rawGet(`${h.url}/docs/scalar.js`, { 'if-none-match': tag, 'accept-encoding': 'gzip' });
    assert.equal(again.status, 304, tag);
    assert.equal(again.body.length, 0);
  }
  const stale = await rawGet(`${h.url}/docs/scalar.js`, { 'if-none-match': '"something-else"' });
  assert.equal(stale.status, 200);
});
