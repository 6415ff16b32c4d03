import type { Hono } from 'hono';
import type { Config } from '../../config/schema.js';
import { renderDocsHtml } from '../docs-html.js';
import { buildOpenApi } from '../openapi.js';
import { addRoute, type RouteSpec } from '../route.js';
import type { ApiDeps, ApiEnv } from '../types.js';

const DOCUMENTED = new WeakMap<object, RouteSpec[]>();
export const setDocumented = (app: object, routes: RouteSpec[]) => DOCUMENTED.set(app, routes);

/** `GET /openapi.json` and `GET /docs`, public; rebuilt when the config changes (model ids are in the schema). */
export function registerDocs(app: Hono<ApiEnv>, deps: ApiDeps): void {
  let cache: { config: Config; doc: ReturnType<typeof buildOpenApi>; html: string } | null = null;
  const current = (base: string) => {
    const config = deps.config.current();
    if (!cache || cache.config !== config) {
      const doc = buildOpenApi(DOCUMENTED.get(app) ?? [], config.publicUrl ?? base);
      cache = { config, doc, html: renderDocsHtml(doc) };
    }
    return cache;
  };
  addRoute(app, deps, { method: 'get', path: '/openapi.json', summary: 'This API described in OpenAPI 3.1', family: 'resource', status: 200 }, (c) => c.json(current(new URL(c.req.url).origin).doc));
  addRoute(app, deps, { method: 'get', path: '/docs', summary: 'Human-readable reference, rendered from /openapi.json', family: 'resource', status: 200 }, (c) => c.html(current(new URL(c.req.url).origin).html));
}
