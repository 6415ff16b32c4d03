import type { Hono } from 'hono';
import { addRoute } from '../route.js';
import type { ApiDeps, ApiEnv } from '../types.js';

export function registerHealth(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(app, deps, { method: 'get', path: '/health', summary: 'Liveness: answers while the server accepts requests', family: 'resource', status: 200 }, (c) =>
    c.json({ data: { status: 'ok' } }),
  );
}
