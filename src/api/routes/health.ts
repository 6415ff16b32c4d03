import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../api-deps.js';
import { dataOf } from '../common-schemas.js';
import { addRoute } from '../route.js';

export const HealthResponse = dataOf(z.object({ status: z.literal('ok') }));
export type HealthResponse = z.infer<typeof HealthResponse>;

export function registerHealth(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/health',
      summary: 'Liveness: answers while the server accepts requests',
      family: 'resource',
      status: 200,
      response: HealthResponse,
    },
    async () => ({
      body: { data: { status: 'ok' as const } },
    }),
  );
}
