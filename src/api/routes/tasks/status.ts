import type { Hono } from 'hono';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerTasksStatus(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id/status',
      summary: "A task's status and nothing else (API key, or a PAT for this task)",
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => c.json({ data: { status: (await deps.tasks.getReadable(principal, c.req.param('id')!)).status } }),
  );
}
