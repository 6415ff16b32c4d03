import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';

/** Where the reference page loads its renderer from. */
export const SCALAR_PATH = '/docs/scalar.js';

interface Bundle {
  identity: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  /** A digest of the file: the page asks for `?v=<hash>`, which may then be cached as immutable. */
  hash: string;
  /** Strong ETags, one per encoding: the two answers are different bytes. */
  etag: string;
  etagGzip: string;
}

let loading: Promise<Bundle> | undefined;

/**
 * Scalar's standalone browser bundle, from the installed package (resolved through its exports,
 * so it is found from src/ and from a compiled dist/ alike), read and gzipped once per process.
 */
export function scalarBundle(): Promise<Bundle> {
  loading ??= (async () => {
    const path = fileURLToPath(import.meta.resolve('@scalar/api-reference/browser/standalone.js'));
    const identity = new Uint8Array(await readFile(path));
    const gzipped = new Uint8Array(await promisify(gzip)(identity, { level: 9 }));
    const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    return { identity, gzipped, hash, etag: `"${hash}"`, etagGzip: `"${hash}-gz"` };
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** Whether an Accept-Encoding header accepts gzip (an explicit `q=0` refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const offers = header.split(',').map((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { name: name.trim(), q: q ? Number(q.slice(2)) : 1 };
  });
  const gz = offers.find((o) => o.name === 'gzip' || o.name === 'x-gzip') ?? offers.find((o) => o.name === '*');
  return gz !== undefined && gz.q > 0;
}

/** Whether If-None-Match names one of the ETags (weak comparison, as RFC 9110 says for this header). */
const matches = (header: string | undefined, ...etags: string[]): boolean =>
  header !== undefined &&
  (header.trim() === '*' || header.split(',').some((tag) => etags.includes(tag.trim().replace(/^W\//, ''))));

export function registerDocsScalarBundle(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: SCALAR_PATH,
      summary:
        'The script that renders /docs (Scalar API Reference, from the installed package); gzipped when accepted, strong ETag, immutable under ?v=<digest>',
      family: 'resource',
      status: 200,
      produces: 'text/javascript',
    },
    async (c) => {
      const b = await scalarBundle();
      const gz = acceptsGzip(c.req.header('accept-encoding'));
      const headers: Record<string, string> = {
        'content-type': 'text/javascript; charset=utf-8',
        // The page's own link names the digest, so that URL never changes content; a bare one is revalidated.
        'cache-control': c.req.query('v') === b.hash ? 'public, max-age=31536000, immutable' : 'no-cache',
        etag: gz ? b.etagGzip : b.etag,
        vary: 'Accept-Encoding',
        'x-content-type-options': 'nosniff',
      };
      if (matches(c.req.header('if-none-match'), b.etag, b.etagGzip))
        return new Response(null, { status: 304, headers });
      const body = gz ? b.gzipped : b.identity;
      if (gz) headers['content-encoding'] = 'gzip';
      headers['content-length'] = String(body.byteLength);
      return new Response(body, { status: 200, headers });
    },
  );
}
