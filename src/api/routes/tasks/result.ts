import type { Hono } from 'hono';
import { toResultView } from '../../../services/task-views.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerTasksResult(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id/result',
      summary: "A task's id, status, type and result (API key, or a PAT for this task)",
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => c.json({ data: toResultView(await deps.tasks.getReadable(principal, c.req.param('id')!)) }),
  );
}
