import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';
import { documentOf } from './document.js';
import { SCALAR_PATH, scalarBundle } from './scalar-bundle.js';

/**
 * Scalar's options: everything that would reach another host is off (its web fonts, telemetry,
 * the request proxy, the hosted client, the AI agent, the developer toolbar with its share
 * links), so the page works offline and tells nobody who reads it.
 */
export const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  documentDownloadType: 'json',
  operationTitleSource: 'summary',
  defaultOpenAllTags: false,
  orderRequiredPropertiesFirst: true,
} as const;

const esc = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Only this origin: the renderer, the description and the API it tries requests against (plus
 * `publicUrl` when it names another origin). Scalar sets its styles inline and draws icons from
 * data: URIs; nothing else is allowed, so a mistake in the renderer's options cannot fetch from
 * elsewhere either.
 */
export function docsCsp(publicUrl: string | null): string {
  const api = publicUrl ? ` ${new URL(publicUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${api}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * The page: Scalar reads its options from the `#api-reference` element and loads the
 * description from its `data-url`. Both URLs are relative, so the page also works behind a
 * proxy that mounts the service under a path.
 */
export function renderDocsPage(title: string, bundleHash: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This reference is drawn by a script. The API description it renders is <a href="openapi.json">/openapi.json</a> (OpenAPI 3.1).</noscript>
<script id="api-reference" type="application/json" data-url="openapi.json" data-configuration="${esc(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
<script src="${SCALAR_PATH.slice(1)}?v=${encodeURIComponent(bundleHash)}"></script>
</body>
</html>
`;
}

export function registerDocsReference(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/docs',
      summary:
        'Human-readable reference of /openapi.json: operations, field tables, examples, search, a link per operation',
      family: 'resource',
      status: 200,
      produces: 'text/html',
    },
    async (c) => {
      const { doc } = documentOf(app, deps, new URL(c.req.url).origin);
      c.header('content-security-policy', docsCsp(deps.config.current().publicUrl));
      c.header('x-content-type-options', 'nosniff');
      c.header('referrer-policy', 'no-referrer');
      const { hash } = await scalarBundle();
      return c.html(renderDocsPage(doc.info.title, hash));
    },
  );
}
