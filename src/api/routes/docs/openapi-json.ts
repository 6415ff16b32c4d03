import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';
import { documentOf } from './document.js';

export function registerOpenApiJson(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This API described in OpenAPI 3.1',
      family: 'resource',
      status: 200,
      produces: 'application/json',
    },
    async (c) => c.json(documentOf(app, deps, new URL(c.req.url).origin).doc),
  );
}
