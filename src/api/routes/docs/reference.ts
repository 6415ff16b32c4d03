import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { documentOf } from './document.js';

export function registerDocsReference(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(app, deps, { method: 'get', path: '/docs', summary: 'Human-readable reference, rendered from /openapi.json', family: 'resource', status: 200, produces: 'text/html' }, async (c) =>
    c.html(documentOf(app, deps, new URL(c.req.url).origin).html),
  );
}
