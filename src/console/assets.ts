import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { ConsoleEnv } from './console-deps.js';

/** The console's own files: public/console at the package root (two levels above src/console and dist/console). */
const PUBLIC_DIR = fileURLToPath(new URL('../../public/console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

/**
 * Every asset is read once, at start, and served under a name that carries a hash of its bytes
 * (`console.3f9a1c2b7d.css`): a page names the exact version it was written for, so an asset can
 * be cached for a year, and a new release is new names.
 */
function loadAssets(): { byPath: Map<string, Asset>; urls: Map<string, string> } {
  const files: [name: string, path: string][] = readdirSync(PUBLIC_DIR)
    .filter((name) => TYPES[extname(name)])
    .map((name) => [name, join(PUBLIC_DIR, name)]);
  // Charts: Chart.js's own browser build (UMD: it defines window.Chart), from the installed package.
  files.push(['chart.js', join(dirname(fileURLToPath(import.meta.resolve('chart.js'))), 'chart.umd.min.js')]);
  const byPath = new Map<string, Asset>();
  const urls = new Map<string, string>();
  for (const [name, path] of files) {
    const body = new Uint8Array(readFileSync(path));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const ext = extname(name);
    const hashed = `${name.slice(0, -ext.length)}.${hash}${ext}`;
    byPath.set(hashed, { body, type: TYPES[ext], etag: `"${hash}"` });
    urls.set(name, `/console/assets/${hashed}`);
  }
  return { byPath, urls };
}

let loaded: ReturnType<typeof loadAssets> | undefined;
const assets = () => {
  loaded ??= loadAssets();
  return loaded;
};

/** The URL of an asset by its plain name (`console.css`, `tasks.js`, `chart.js`). */
export function assetUrl(name: string): string {
  const url = assets().urls.get(name);
  if (!url) throw new Error(`no console asset "${name}" in public/console`);
  return url;
}

/** Serves /console/assets/<name>.<hash>.<ext>, cached as immutable; needs no session. */
export function registerAssets(app: Hono<ConsoleEnv>): void {
  app.get('/assets/:file', (c) => {
    const asset = assets().byPath.get(c.req.param('file'));
    if (!asset) return c.text('no such asset', 404);
    const headers = {
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      etag: asset.etag,
    };
    if (c.req.header('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
    return new Response(asset.body, {
      status: 200,
      headers: { ...headers, 'content-length': String(asset.body.byteLength) },
    });
  });
}
